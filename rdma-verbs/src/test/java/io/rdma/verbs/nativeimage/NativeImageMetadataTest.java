package io.rdma.verbs.nativeimage;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A native image links only the FFM signatures its reachability metadata registers (GraalVM's
 * FFM-API.md, "Registering Foreign Calls"): the metadata rdma-verbs ships must cover every
 * downcall and upcall the native provider makes, as the provider makes them, and stay what the
 * generator writes from the provider's list. Runs without rdma-core: the provider's classes are
 * loaded with their library lookups answered and their links recorded ({@link ProviderLinks}).
 */
class NativeImageMetadataTest {

    private static final String REGENERATE = "regenerate it as io.rdma.verbs.nativeimage.NativeImageMetadata says";

    @Test
    void theShippedMetadataRegistersEveryDowncallTheProviderLinks() throws IOException {
        List<ForeignLink> linked = new ProviderLinks().observe();
        Set<String> registered = registeredDowncalls();

        assertThat(linked).as("links seen while the provider's classes initialise").isNotEmpty();
        assertThat(linked).as("upcall stubs: the provider makes none, and the metadata has no upcalls section")
                .noneMatch(link -> link.kind() == ForeignLink.Kind.UPCALL);
        Set<String> unregistered = linked.stream().map(NativeImageMetadata::entry)
                .filter(entry -> !registered.contains(entry)).collect(Collectors.toCollection(TreeSet::new));
        assertThat(unregistered)
                .as("downcalls the provider links that %s lacks: add them to NativeDowncalls and %s",
                        NativeImageMetadata.RESOURCE, REGENERATE)
                .isEmpty();
    }

    @Test
    void theShippedMetadataIsWhatTheGeneratorWritesFromTheProvidersList() throws IOException {
        assertThat(shippedMetadata())
                .as("%s against NativeDowncalls: %s", NativeImageMetadata.RESOURCE, REGENERATE)
                .isEqualTo(NativeImageMetadata.render(new ProviderLinks().declared()));
    }

    /** The {@code downcalls} entries of the shipped file, which the generator writes one to a line. */
    private static Set<String> registeredDowncalls() throws IOException {
        return shippedMetadata().lines().map(String::strip).filter(line -> line.startsWith("{\"returnType\""))
                .map(line -> line.endsWith(",") ? line.substring(0, line.length() - 1) : line)
                .collect(Collectors.toSet());
    }

    private static String shippedMetadata() throws IOException {
        try (InputStream in = NativeImageMetadataTest.class.getClassLoader()
                .getResourceAsStream(NativeImageMetadata.RESOURCE)) {
            assertThat(in).as("%s on the class path", NativeImageMetadata.RESOURCE).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
