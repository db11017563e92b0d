package io.rdma.spring.naming;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The nearest valid name by edit distance, and none where even that one differs in more than a third. */
class NearestNameTests {

    @Test
    void aTypoFindsTheNameItWasMeantToBe() {
        assertEquals("greeter", NearestName.of("greeterr", List.of("kv", "greeter", "echo")));
        assertEquals("max-send-wr", NearestName.of("max-sned-wr", List.of("max-recv-wr", "max-send-wr")));
    }

    @Test
    void twoEditsAreNearEvenInAShortName() {
        assertEquals("kv", NearestName.of("kb", List.of("kv", "greeter")));
        assertEquals("rpc", NearestName.of("rcp", List.of("rpc", "greeter")));
    }

    @Test
    void aNameDifferingInMoreThanAThirdIsNearNothing() {
        assertNull(NearestName.of("orders", List.of("rpc", "greeter")));
        assertNull(NearestName.of("anything", List.of()));
    }
}
