package io.rdma.spring.listener;

import io.rdma.spring.convert.Greeting;
import io.rdma.spring.convert.PayloadConversionException;
import io.rdma.spring.convert.RdmaMessageConversion;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessagingException;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Headers;
import org.springframework.messaging.handler.annotation.Payload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Listener methods with typed parameters and replies, as spring-kafka's are: the payload converted
 * to a {@code @Payload} or unannotated parameter, the receive's headers to {@code @Header}
 * parameters, the return value converted to the reply; and signatures that cannot be served
 * rejected when the method is adapted.
 */
class TypedListenerMethodTests {

    private static final RdmaMessageConversion CONVERSION = new RdmaMessageConversion();
    private static final byte[] GREETING_JSON = "{\"text\":\"hi\",\"count\":3}".getBytes(StandardCharsets.UTF_8);

    /** Records what its methods were called with. */
    static class Listener {

        @Nullable Object payload;
        @Nullable Object immediateData;
        @Nullable Object channel;
        @Nullable Object correlationId;

        String greet(@Payload Greeting greeting, @Header(RdmaHeaders.IMMEDIATE_DATA) int immediateData,
                     @Header(RdmaHeaders.RECEIVED_CHANNEL) String channel) {
            this.payload = greeting;
            this.immediateData = immediateData;
            this.channel = channel;
            return "hello " + greeting.text();
        }

        void text(String text) {
            this.payload = text;
        }

        Greeting answer(String question) {
            return new Greeting(question + "!", question.length());
        }

        @Nullable String nothing(String question) {
            return null;
        }

        void mayHaveImmediateData(@Payload(required = false) @Nullable String text,
                                  @Header(name = RdmaHeaders.IMMEDIATE_DATA, required = false) Optional<Integer> imm) {
            this.payload = text;
            this.immediateData = imm;
        }

        void request(@Header(RdmaHeaders.CORRELATION_ID) long correlationId, byte[] payload) {
            this.correlationId = correlationId;
            this.payload = payload;
        }

        void message(Message<Greeting> message) {
            this.payload = message.getPayload();
            this.channel = message.getHeaders().get(RdmaHeaders.RECEIVED_CHANNEL);
        }

        void headers(@Headers Map<String, Object> headers) {
            this.payload = headers;
        }

        void failsChecked(String text) throws IOException {
            throw new IOException("disk gone");
        }

        void failsUnchecked(String text) {
            throw new IllegalArgumentException("bad text " + text);
        }

        byte[] bytes(byte[] payload) {
            return payload;
        }

        void buffer(ReceivedBuffer buffer) {
        }

        byte[] received(ReceivedMessage message) {
            return message.payload();
        }

        void twoPayloads(String first, String second) {
        }

        void unknownHeader(@Header("rdma_priority") int priority) {
        }

        void headerOfWrongType(@Header(RdmaHeaders.IMMEDIATE_DATA) Greeting greeting) {
        }

        void optionalPrimitive(@Header(name = RdmaHeaders.IMMEDIATE_DATA, required = false) int immediateData) {
        }

        void bufferBesideHeader(ReceivedBuffer buffer, @Header(RdmaHeaders.IMMEDIATE_DATA) int immediateData) {
        }

        String receivedMessageWithTextReply(ReceivedMessage message) {
            return "";
        }

        CompletableFuture<String> later(String text) {
            return CompletableFuture.completedFuture(text);
        }
    }

    private final Listener listener = new Listener();

    private TypedListenerMethod typed(String name) {
        return new TypedListenerMethod(listener, method(name), CONVERSION);
    }

    private static Method method(String name) {
        return Arrays.stream(Listener.class.getDeclaredMethods()).filter(m -> m.getName().equals(name)).findFirst()
                .orElseThrow();
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aPayloadRecordAndHeadersReachTheirParametersAndTheTextReplyIsConverted() {
        byte[] reply = typed("greet").invoke("greeter#1", GREETING_JSON, true, 42, null);

        assertThat(listener.payload).isEqualTo(new Greeting("hi", 3));
        assertThat(listener.immediateData).isEqualTo(42);
        assertThat(listener.channel).isEqualTo("greeter#1");
        assertThat(reply).asString(StandardCharsets.UTF_8).isEqualTo("hello hi");
    }

    @Test
    void anUnannotatedParameterIsThePayload() {
        byte[] reply = typed("text").invoke("text", utf8("plain words"), false, 0, null);

        assertThat(listener.payload).isEqualTo("plain words");
        assertThat(reply).as("a void method replies nothing").isNull();
    }

    @Test
    void aReturnedRecordIsTheReplyAsJson() {
        byte[] reply = typed("answer").invoke("questions", utf8("why"), false, 0, null);

        assertThat(CONVERSION.fromPayload(reply, Greeting.class)).isEqualTo(new Greeting("why!", 3));
    }

    @Test
    void nullReturnedIsNoReply() {
        assertThat(typed("nothing").invoke("questions", utf8("why"), false, 0, null)).isNull();
    }

    @Test
    void aBytePayloadAndReplyPassUnconverted() {
        byte[] payload = {(byte) 0xff, 0, 1};

        assertThat(typed("bytes").invoke("raw", payload, false, 0, null)).isSameAs(payload);
    }

    @Test
    void immediateDataIsAbsentWhenTheSenderAttachedNone() {
        TypedListenerMethod method = typed("mayHaveImmediateData");

        method.invoke("tags", utf8("tagged"), true, 7, null);
        assertThat(listener.immediateData).isEqualTo(Optional.of(7));

        method.invoke("tags", new byte[0], false, 0, null);
        assertThat(listener.immediateData).isEqualTo(Optional.empty());
        assertThat(listener.payload).as("an empty payload to an optional payload parameter").isNull();
    }

    @Test
    void aRequiredHeaderTheMessageLacksFailsTheInvocationNamingIt() {
        assertThatExceptionOfType(MessagingException.class)
                .isThrownBy(() -> typed("greet").invoke("greeter#1", GREETING_JSON, false, 0, null))
                .withMessageContaining("'" + RdmaHeaders.IMMEDIATE_DATA + "'");
    }

    @Test
    void theCorrelationIdOfARequestIsAHeaderConvertedToTheParametersType() {
        byte[] payload = {9};

        typed("request").invoke("rpc", payload, false, 0, 1234);

        assertThat(listener.correlationId).isEqualTo(1234L);
        assertThat(listener.payload).isSameAs(payload);
    }

    @Test
    void aMessageParameterHasTheConvertedPayloadAndTheHeaders() {
        typed("message").invoke("greeter#2", GREETING_JSON, false, 0, null);

        assertThat(listener.payload).isEqualTo(new Greeting("hi", 3));
        assertThat(listener.channel).isEqualTo("greeter#2");
    }

    @Test
    void theHeadersAreTheReceivesOnly() {
        typed("headers").invoke("greeter#3", GREETING_JSON, true, -1, 5);

        assertThat(listener.payload).asInstanceOf(InstanceOfAssertFactories.MAP).containsExactlyInAnyOrderEntriesOf(
                Map.of(RdmaHeaders.RECEIVED_CHANNEL, "greeter#3",
                RdmaHeaders.IMMEDIATE_DATA, -1, RdmaHeaders.CORRELATION_ID, 5));
    }

    @Test
    void aPayloadThatDoesNotConvertFailsTheInvocationNamingTheType() {
        assertThatExceptionOfType(PayloadConversionException.class)
                .isThrownBy(() -> typed("greet").invoke("greeter#1", utf8("not json"), true, 1, null))
                .withMessageContaining("to io.rdma.spring.convert.Greeting with [ByteArrayMessageConverter,"
                        + " StringMessageConverter, JacksonJsonMessageConverter]");
        assertThat(listener.payload).isNull();
    }

    @Test
    void whatTheMethodThrowsIsThrownUncheckedWithTheCause() {
        assertThatExceptionOfType(IllegalArgumentException.class)
                .isThrownBy(() -> typed("failsUnchecked").invoke("text", utf8("x"), false, 0, null))
                .withMessage("bad text x");
        assertThatExceptionOfType(IllegalStateException.class)
                .isThrownBy(() -> typed("failsChecked").invoke("text", utf8("x"), false, 0, null))
                .withMessageContaining("failsChecked")
                .withCauseInstanceOf(IOException.class);
    }

    @Test
    void twoPayloadParametersFailWhenAdaptedNamingTheSecond() {
        assertThatExceptionOfType(InvalidListenerMethodException.class)
                .isThrownBy(() -> typed("twoPayloads"))
                .withMessageStartingWith("@RdmaListener method void " + Listener.class.getName()
                        + ".twoPayloads(java.lang.String,java.lang.String) cannot be called: parameter"
                        + " 1 (java.lang.String second) is a second payload parameter, beside parameter"
                        + " 0 (java.lang.String first)")
                .withMessageContaining("an @RdmaListener method takes at most one payload parameter")
                .satisfies(e -> assertThat(e.method()).isEqualTo(method("twoPayloads")));
    }

    @Test
    void aHeaderAReceiveDoesNotGiveFailsWhenAdaptedListingThoseItGives() {
        assertThatExceptionOfType(InvalidListenerMethodException.class)
                .isThrownBy(() -> typed("unknownHeader"))
                .withMessageContaining(".unknownHeader(int) cannot be called: parameter 0 (int priority) takes"
                        + " header 'rdma_priority', which a received RDMA message does not have; it has"
                        + " RdmaHeaders.RECEIVED_CHANNEL ('rdma_receivedChannel', a String),"
                        + " RdmaHeaders.IMMEDIATE_DATA ('rdma_immediateData', an Integer) and"
                        + " RdmaHeaders.CORRELATION_ID ('rdma_correlationId', an Integer)");
    }

    @Test
    void aHeaderThatDoesNotConvertToItsParameterFailsWhenAdapted() {
        assertThatExceptionOfType(InvalidListenerMethodException.class)
                .isThrownBy(() -> typed("headerOfWrongType"))
                .withMessageContaining("parameter 0 (io.rdma.spring.convert.Greeting greeting) takes header"
                        + " 'rdma_immediateData', an Integer, which does not convert to io.rdma.spring.convert.Greeting");
    }

    @Test
    void anOptionalHeaderIntoAPrimitiveFailsWhenAdapted() {
        assertThatExceptionOfType(InvalidListenerMethodException.class)
                .isThrownBy(() -> typed("optionalPrimitive"))
                .withMessageContaining("parameter 0 (int immediateData) takes header 'rdma_immediateData' with"
                        + " required = false, so null when the message has none, into a primitive; take Integer or"
                        + " Optional<Integer>, or give a defaultValue");
    }

    @Test
    void aReceivedBufferOrMessageBesideOtherParametersOrWithATypedReplyFailsWhenAdapted() {
        assertThatExceptionOfType(InvalidListenerMethodException.class)
                .isThrownBy(() -> typed("bufferBesideHeader"))
                .withMessageContaining("parameter 0 (" + ReceivedBuffer.class.getName() + " buffer) is a"
                        + " ReceivedBuffer, which is taken only as the only parameter of a method that returns byte[]"
                        + " or void");
        assertThatExceptionOfType(InvalidListenerMethodException.class)
                .isThrownBy(() -> typed("receivedMessageWithTextReply"))
                .withMessageContaining("parameter 0 (" + ReceivedMessage.class.getName() + " message) is a"
                        + " ReceivedMessage");
    }

    @Test
    void aFutureReturnedFailsWhenAdapted() {
        assertThatExceptionOfType(InvalidListenerMethodException.class)
                .isThrownBy(() -> typed("later"))
                .withMessageContaining(".later(java.lang.String) cannot be called: it returns a"
                        + " java.util.concurrent.CompletableFuture, but a reply is returned as the value itself");
    }

    @Test
    void onlyTheDirectFormNeedsNoConversion() {
        assertThat(TypedListenerMethod.needsConversion(method("bytes"))).isFalse();
        assertThat(TypedListenerMethod.needsConversion(method("buffer"))).isFalse();
        assertThat(TypedListenerMethod.needsConversion(method("received"))).isFalse();
        assertThat(TypedListenerMethod.needsConversion(method("text"))).isTrue();
        assertThat(TypedListenerMethod.needsConversion(method("greet"))).isTrue();
        assertThat(TypedListenerMethod.needsConversion(method("receivedMessageWithTextReply"))).isTrue();
        assertThat(TypedListenerMethod.needsConversion(method("headers"))).isTrue();
    }
}
