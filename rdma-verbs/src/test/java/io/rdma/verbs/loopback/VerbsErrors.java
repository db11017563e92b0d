package io.rdma.verbs.loopback;

import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.VerbsException;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** Asserts that a call fails the way the verbs manual says: this verb, this errno. */
public final class VerbsErrors {

    private VerbsErrors() {
    }

    public static VerbsException expectFailure(String verb, Errno errno, ThrowingCallable call) {
        VerbsException failure = catchThrowableOfType(VerbsException.class, call);
        assertThat(failure).as("expected %s to fail with %s", verb, errno).isNotNull();
        assertFailure(failure, verb, errno);
        return failure;
    }

    /** Asserts that {@code failure} is {@code verb} failing with {@code errno}. */
    public static void assertFailure(VerbsException failure, String verb, Errno errno) {
        assertThat(failure.verb()).as("verb of: %s", failure.getMessage()).isEqualTo(verb);
        assertThat(failure.errno()).as("errno of: %s", failure.getMessage()).isEqualTo(errno);
    }
}
