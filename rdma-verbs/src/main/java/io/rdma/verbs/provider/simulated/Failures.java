package io.rdma.verbs.provider.simulated;

import io.rdma.verbs.api.Errno;
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

    static VerbsException aboveLimit(String verb, String what, long requested, long limit) {
        return new VerbsException(verb, Errno.EINVAL, what + " " + requested + " exceeds the device limit " + limit,
                "ask for at most " + limit + " (DeviceAttributes reports the limits)");
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
