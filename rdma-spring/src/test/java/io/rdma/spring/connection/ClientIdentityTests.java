package io.rdma.spring.connection;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The identity an outbound connection sends with each connect, and that a listener reads back
 * from a request's private data (at most 56 bytes: rdma_cm's limit for RC on every transport).
 */
class ClientIdentityTests {

    @Test
    void anIdentityIsReadBackFromItsPrivateDataAndFitsRdmaCm() {
        ClientIdentity identity = ClientIdentity.random();

        assertThat(identity.privateData()).hasSizeLessThanOrEqualTo(56);
        assertThat(ClientIdentity.of(identity.privateData())).contains(identity);
        assertThat(ClientIdentity.random()).isNotEqualTo(identity);
    }

    @Test
    void anotherClientsPrivateDataIsNoIdentity() {
        assertThat(ClientIdentity.of(new byte[0])).isEmpty();
        assertThat(ClientIdentity.of("hello, this is a client of its own making"
                .getBytes(StandardCharsets.US_ASCII))).isEmpty();
        byte[] truncated = new byte[10];
        System.arraycopy(ClientIdentity.random().privateData(), 0, truncated, 0, truncated.length);
        assertThat(ClientIdentity.of(truncated)).isEmpty();
    }
}
