package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.Unsigned64;
import io.rdma.verbs.api.VerbsException;

/** The errors the fabric raises, worded once: each names the verb and errno, and says what to do. */
final class Failures {

    private Failures() {
    }

    static VerbsException invalid(String verb, String detail) {
        return new VerbsException(verb, Errno.EINVAL, detail, null);
    }

    static VerbsException invalid(String verb, String detail, String advice) {
        return new VerbsException(verb, Errno.EINVAL, detail, advice);
    }

    /** {@code limit} is read unsigned: some limits ({@code max_mr_size}) are u64s. */
    static VerbsException aboveLimit(String verb, String what, long requested, long limit) {
        String shown = Unsigned64.toString(limit);
        return new VerbsException(verb, Errno.EINVAL, what + " " + requested + " exceeds the device limit " + shown,
                "ask for at most " + shown + " (DeviceAttributes reports the limits)");
    }

    static VerbsException exhausted(String verb, String what, long limit) {
        return new VerbsException(verb, Errno.ENOMEM, "the device already holds its maximum of " + limit + " " + what,
                "close unused " + what + " or use a device with higher limits");
    }

    static VerbsException unsupported(String verb, String detail) {
        return new VerbsException(verb, Errno.EOPNOTSUPP, detail, null);
    }

    static VerbsException unsupported(String verb, String detail, String advice) {
        return new VerbsException(verb, Errno.EOPNOTSUPP, detail, advice);
    }

    static VerbsException busy(String verb, String detail, String advice) {
        return new VerbsException(verb, Errno.EBUSY, detail, advice);
    }
}
