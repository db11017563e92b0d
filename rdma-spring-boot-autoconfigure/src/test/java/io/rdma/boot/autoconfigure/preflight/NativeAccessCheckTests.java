package io.rdma.boot.autoconfigure.preflight;

import io.rdma.boot.autoconfigure.RdmaContextRunners;
import io.rdma.verbs.api.ProviderKind;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The advice names the setting that is missing where rdma-verbs was loaded (a jar manifest or
 * launcher flag on the class path, the module's name on the module path), and nothing is said
 * when native access is granted, as the build grants it to every test JVM, or cannot matter.
 */
class NativeAccessCheckTests {

    @Test
    void tellsAClassPathApplicationToEnableNativeAccessForAllUnnamed() {
        assertThat(NativeAccessCheck.advice(ProviderKind.AUTO, false, null)).hasValueSatisfying(advice -> assertThat(advice)
                .contains("Enable-Native-Access: ALL-UNNAMED", "--enable-native-access=ALL-UNNAMED", "rdma.provider=auto"));
    }

    @Test
    void tellsAModulePathApplicationToEnableNativeAccessForTheVerbsModule() {
        assertThat(NativeAccessCheck.advice(ProviderKind.NATIVE, false, "io.rdma.verbs")).hasValueSatisfying(advice -> assertThat(advice)
                .contains("--enable-native-access=io.rdma.verbs", "rdma.provider=native")
                .doesNotContain("ALL-UNNAMED"));
    }

    @Test
    void saysNothingWhenNativeAccessIsEnabledOrTheProviderIsSimulated() {
        assertThat(NativeAccessCheck.advice(ProviderKind.NATIVE, true, null)).isEmpty();
        assertThat(NativeAccessCheck.advice(ProviderKind.SIMULATED, false, null)).isEmpty();
    }

    @Test
    void findsNativeAccessGrantedToTheTestJvm() {
        // surefire runs the tests with --enable-native-access=ALL-UNNAMED (the parent POM's argLine)
        RdmaContextRunners.runner().withPropertyValues("rdma.provider=auto").run(context ->
                assertThat(context.getBean(NativeAccessCheck.class).advice()).isEmpty());
    }
}
