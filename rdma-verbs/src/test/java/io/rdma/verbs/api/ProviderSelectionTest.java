package io.rdma.verbs.api;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/** {@code auto} serves from the native provider when it shows a device, and never falls back to the simulated fabric silently. */
class ProviderSelectionTest {

    /** System.Logger's default backend is java.util.logging, which the test reads. */
    private final Logger verbsLogger = Logger.getLogger(Verbs.class.getName());
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final Handler recorder = new Handler() {
        @Override
        public void publish(LogRecord record) {
            records.add(record);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void record() {
        verbsLogger.addHandler(recorder);
    }

    @AfterEach
    void stopRecording() {
        verbsLogger.removeHandler(recorder);
    }

    @Test
    void autoWithoutANativeDeviceFallsBackAndWarnsWithTheReason() {
        assumeFalse(nativeDevicePresent(), "this host has an RDMA device, so auto selects the native provider");
        try (Verbs verbs = Verbs.open(ProviderKind.AUTO)) {
            assertThat(verbs.providerName()).isEqualTo("simulated");
            assertThat(verbs.fellBackToSimulated()).isTrue();
            assertThat(verbs.selectionReason()).startsWith("auto: simulated fabric selected because the native"
                    + " provider is unusable: ").doesNotEndWith(": ");
        }
        assertThat(records).filteredOn(record -> record.getLevel() == Level.WARNING).singleElement()
                .satisfies(warning -> assertThat(warning.getMessage()).contains("native provider is unusable")
                        .contains("open provider 'native' where an RDMA device must serve"));
    }

    @Test
    void aRequestedProviderIsNoFallback() {
        try (Verbs verbs = Verbs.open(ProviderKind.SIMULATED)) {
            assertThat(verbs.fellBackToSimulated()).isFalse();
        }
        assertThat(records).noneMatch(record -> record.getLevel() == Level.WARNING);
    }

    private static boolean nativeDevicePresent() {
        try (Verbs verbs = Verbs.open(ProviderKind.NATIVE)) {
            return !verbs.devices().isEmpty();
        } catch (VerbsException unavailable) {
            return false;
        }
    }
}
