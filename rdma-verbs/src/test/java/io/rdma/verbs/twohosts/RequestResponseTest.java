package io.rdma.verbs.twohosts;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNoException;

class RequestResponseTest {

    @Test
    void requestsVaryInLengthAndFitTheLargestMessage() {
        for (int round = 0; round < 1000; round++) {
            assertThat(RequestResponse.request(round).length).isBetween(5, RequestResponse.MAX_MESSAGE);
        }
        assertThat(RequestResponse.request(1)).hasSize(4 + 398);
    }

    @Test
    void aRequestAndItsResponsePassTheirChecks() {
        byte[] request = RequestResponse.request(7);
        assertThatNoException().isThrownBy(() -> RequestResponse.checkRequest(request, 7));
        assertThatNoException().isThrownBy(() -> RequestResponse.checkResponse(RequestResponse.response(request), 7));
    }

    @Test
    void aCorruptedReorderedOrEchoedMessageFails() {
        byte[] corrupted = RequestResponse.request(3);
        corrupted[corrupted.length - 1] ^= 1;
        assertThatIllegalStateException().isThrownBy(() -> RequestResponse.checkRequest(corrupted, 3))
                .withMessageContaining("corrupted");
        assertThatIllegalStateException().isThrownBy(() -> RequestResponse.checkRequest(RequestResponse.request(4), 3))
                .withMessageContaining("expected request 3");
        byte[] echo = RequestResponse.request(3);
        assertThatIllegalStateException().isThrownBy(() -> RequestResponse.checkResponse(echo, 3));
    }
}
