package io.rdma.verbs.wire;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.assertj.core.api.Assertions.assertThat;

class ValidateBufferPatternTest {

    @Test
    void marksThePageStartsOfA0x7bBufferWithZero() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment message = arena.allocate(2 * 4096 + 10);
            ValidateBufferPattern.fill(message);

            assertThat(message.get(ValueLayout.JAVA_BYTE, 0)).isZero();
            assertThat(message.get(ValueLayout.JAVA_BYTE, 4096)).isZero();
            assertThat(message.get(ValueLayout.JAVA_BYTE, 8192)).isZero();
            assertThat(message.get(ValueLayout.JAVA_BYTE, 1)).isEqualTo((byte) 0x7b);
            assertThat(message.get(ValueLayout.JAVA_BYTE, 8201)).isEqualTo((byte) 0x7b);
            assertThat(ValidateBufferPattern.firstMismatch(message)).isEqualTo(-1);
        }
    }

    @Test
    void findsTheFirstByteOffThePattern() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment message = arena.allocate(3 * 4096);
            ValidateBufferPattern.fill(message);
            message.set(ValueLayout.JAVA_BYTE, 8192, (byte) 0x7b);
            message.set(ValueLayout.JAVA_BYTE, 9000, (byte) 0);

            assertThat(ValidateBufferPattern.firstMismatch(message)).isEqualTo(8192);
        }
    }
}
