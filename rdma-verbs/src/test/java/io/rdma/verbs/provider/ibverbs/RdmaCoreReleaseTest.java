package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.api.ProviderKind;
import io.rdma.verbs.api.Verbs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The version gate: which rdma-core a process loaded, told from its mapped files, and whether it is used. */
class RdmaCoreReleaseTest {

    private static final String BOOKWORM_VERBS =
            "7f3c1a2b4000-7f3c1a2b9000 r-xp 00004000 fe:01 1311 /usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0";
    private static final String BOOKWORM_CM =
            "7f3c1a3b4000-7f3c1a3b9000 r-xp 00005000 fe:01 1312 /usr/lib/x86_64-linux-gnu/librdmacm.so.1.3.44.0";

    /** A process with a release {@code version} of both libraries under {@code directory}, plus unrelated mappings. */
    private static List<String> maps(String directory, String version) {
        return List.of(
                "55d0c0a00000-55d0c0a01000 r--p 00000000 fe:01 100 /usr/lib/jvm/temurin-25-jdk-amd64/bin/java",
                "7f3c1a2b0000-7f3c1a2b4000 r--p 00000000 fe:01 1311 " + directory + "/libibverbs.so.1.14." + version,
                "7f3c1a2b4000-7f3c1a2b9000 r-xp 00004000 fe:01 1311 " + directory + "/libibverbs.so.1.14." + version,
                "7f3c1a3b0000-7f3c1a3b4000 r--p 00000000 fe:01 1312 " + directory + "/librdmacm.so.1.3." + version,
                "7f3c1a4b0000-7f3c1a4b4000 rw-p 00000000 00:00 0 ",
                "7ffd5a1e0000-7ffd5a201000 rw-p 00000000 00:00 0                          [stack]");
    }

    @Test
    void bookwormsLibrariesAreRdmaCore44WhichIsVerified() {
        RdmaCoreRelease release = RdmaCoreRelease.fromMappedFiles(maps("/usr/lib/x86_64-linux-gnu", "44.0"));

        assertThat(release.version()).isEqualTo("44.0");
        assertThat(release.major()).isEqualTo(44);
        assertThat(release.libibverbs()).isEqualTo(Path.of("/usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0"));
        assertThat(release.librdmacm()).isEqualTo(Path.of("/usr/lib/x86_64-linux-gnu/librdmacm.so.1.3.44.0"));
        assertThat(release.verified()).isTrue();
        assertThat(release).hasToString("rdma-core 44.0 (/usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0, "
                + "/usr/lib/x86_64-linux-gnu/librdmacm.so.1.3.44.0)");
    }

    @Test
    void aStableUpdateOfAVerifiedReleaseIsVerified() {
        assertThat(RdmaCoreRelease.fromMappedFiles(maps("/usr/lib64", "44.3")).verified()).isTrue();
    }

    @Test
    void aBuildOutsideTheSystemDirectoriesIsToldByItsFileNames() {
        RdmaCoreRelease release = RdmaCoreRelease.fromMappedFiles(maps("/var/tmp/softroce/rdma-core-56.1/build/lib",
                "56.1"));

        assertThat(release.version()).isEqualTo("56.1");
        assertThat(release.major()).isEqualTo(56);
    }

    @Test
    void anUnverifiedReleaseIsRefusedNamingItTheVerifiedOnesAndWhatToDo() {
        RdmaCoreRelease release = RdmaCoreRelease.fromMappedFiles(maps("/opt/rdma-core/lib", "99.0"));

        assertThat(release.verified()).isFalse();
        assertThat(release.refusal())
                .contains("rdma-core 99.0 (/opt/rdma-core/lib/libibverbs.so.1.14.99.0)")
                .contains("rdma-core [44.x")
                .contains("LD_LIBRARY_PATH")
                .contains("rdma-core-build.sh 99.0")
                .contains("NativeAbiTest")
                .contains("add 99 to RdmaCoreRelease.VERIFIED_MAJORS");
    }

    @Test
    void librariesOfTwoReleasesAreRefusedNamingBoth() {
        List<String> mixed = List.of(
                "7f3c1a2b4000-7f3c1a2b9000 r-xp 00004000 fe:01 1311 /opt/rdma-core/lib/libibverbs.so.1.14.56.1",
                BOOKWORM_CM);

        assertThatIllegalStateException().isThrownBy(() -> RdmaCoreRelease.fromMappedFiles(mixed))
                .withMessageContaining("/opt/rdma-core/lib/libibverbs.so.1.14.56.1) is rdma-core 56.1")
                .withMessageContaining("/usr/lib/x86_64-linux-gnu/librdmacm.so.1.3.44.0) is rdma-core 44.0")
                .withMessageContaining("load both from one rdma-core");
    }

    @Test
    void aLibraryThatIsNotMappedIsNamed() {
        assertThatIllegalStateException().isThrownBy(() -> RdmaCoreRelease.fromMappedFiles(List.of(BOOKWORM_VERBS)))
                .withMessageContaining("librdmacm.so.1 is not mapped into this process");
    }

    @Test
    void twoCopiesOfOneLibraryAreRefused() {
        List<String> twice = List.of(BOOKWORM_VERBS, BOOKWORM_CM,
                "7f3c1a5b4000-7f3c1a5b9000 r-xp 00004000 fe:01 1400 /opt/rdma-core/lib/libibverbs.so.1.14.56.1");

        assertThatIllegalStateException().isThrownBy(() -> RdmaCoreRelease.fromMappedFiles(twice))
                .withMessageContaining("libibverbs.so.1 is mapped from 2 files")
                .withMessageContaining("load one rdma-core only");
    }

    @Test
    void aLibraryNotNamedAsRdmaCoreNamesItIsRefusedRatherThanGuessed() {
        List<String> unversioned = List.of(
                "7f3c1a2b4000-7f3c1a2b9000 r-xp 00004000 fe:01 1311 /opt/vendor/lib/libibverbs.so.1",
                BOOKWORM_CM);

        assertThatIllegalStateException().isThrownBy(() -> RdmaCoreRelease.fromMappedFiles(unversioned))
                .withMessageContaining("/opt/vendor/lib/libibverbs.so.1 is not named as rdma-core names its libraries");
    }

    @Test
    void aLibraryReplacedOnDiskSinceItWasLoadedIsStillTold() {
        List<String> upgraded = List.of(BOOKWORM_VERBS + " (deleted)", BOOKWORM_CM);

        assertThat(RdmaCoreRelease.fromMappedFiles(upgraded).version()).isEqualTo("44.0");
    }

    /**
     * Where rdma-core is installed: the release this JVM loaded is verified and named in the
     * provider's selection reason. {@code -Drdma-test.expected-rdma-core=VERSION} makes it prove
     * which release a run used (the Soft-RoCE suite against a build of another rdma-core).
     */
    @Test
    void theLoadedReleaseIsVerifiedAndNamedInTheSelectionReason(TestReporter reporter) {
        assumeTrue(NativeLibraries.missing().isEmpty(), "rdma-core is not installed here");
        RdmaCoreRelease release = RdmaCoreRelease.loaded();
        reporter.publishEntry("rdma-core", release.toString());

        String expected = System.getProperty("rdma-test.expected-rdma-core");
        if (expected != null) {
            assertThat(release.version()).isEqualTo(expected);
        }
        assertThat(release.verified()).as(release.refusal()).isTrue();
        assertThat(new NativeVerbsProvider().availability().reason()).startsWith(release.toString());
    }

    /** {@code auto} uses the native provider only with a verified release, and says which release either way. */
    @Test
    void autoNamesTheLoadedReleaseAndFallsBackFromAnUnverifiedOne() {
        assumeTrue(NativeLibraries.missing().isEmpty(), "rdma-core is not installed here");
        RdmaCoreRelease release = RdmaCoreRelease.loaded();

        try (Verbs verbs = Verbs.open(ProviderKind.AUTO)) {
            if (release.verified()) {
                assertThat(verbs.selectionReason()).contains(release.toString());
            } else {
                assertThat(verbs.providerName()).isEqualTo(ProviderKind.SIMULATED.providerName());
                assertThat(verbs.selectionReason()).contains(release.refusal());
            }
        }
    }
}
