package io.rdma.spring.convert;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.messaging.converter.ByteArrayMessageConverter;
import org.springframework.messaging.converter.CompositeMessageConverter;
import org.springframework.messaging.converter.StringMessageConverter;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The default chain with Jackson on the class path: bytes as they are, text as UTF-8, every other
 * type as JSON, the type alone choosing, and a conversion that cannot be done fails naming the
 * type and the converters.
 */
class RdmaMessageConversionTests {

    private final RdmaMessageConversion conversion = new RdmaMessageConversion();

    @Test
    void aByteArrayIsThePayloadItselfBothWays() {
        byte[] bytes = {1, 2, 3};

        assertThat(conversion.toPayload(bytes)).isSameAs(bytes);
        assertThat(conversion.fromPayload(bytes, byte[].class)).isSameAs(bytes);
        assertThat(conversion.fromPayload(bytes, Object.class)).isSameAs(bytes);
    }

    @Test
    void aStringTravelsAsUtf8() {
        String text = "Grüße, ﾐｸ";

        assertThat(conversion.toPayload(text)).isEqualTo(text.getBytes(StandardCharsets.UTF_8));
        assertThat(conversion.fromPayload(text.getBytes(StandardCharsets.UTF_8), String.class)).isEqualTo(text);
    }

    @Test
    void aRecordTravelsAsJson() {
        byte[] payload = conversion.toPayload(new Greeting("hello", 2));

        assertThat(JsonMapper.shared().readTree(payload))
                .isEqualTo(JsonMapper.shared().readTree("{\"text\":\"hello\",\"count\":2}"));
        assertThat(conversion.fromPayload("{\"text\":\"hi\",\"count\":7}".getBytes(StandardCharsets.UTF_8),
                Greeting.class)).isEqualTo(new Greeting("hi", 7));
    }

    @Test
    void aGenericTypeIsReadWithItsTypeArguments() {
        byte[] payload = "[{\"text\":\"a\",\"count\":1},{\"text\":\"b\",\"count\":2}]".getBytes(StandardCharsets.UTF_8);

        Object greetings = conversion.fromPayload(payload, new ParameterizedTypeReference<List<Greeting>>() { }.getType());

        assertThat(greetings).isEqualTo(List.of(new Greeting("a", 1), new Greeting("b", 2)));
    }

    @Test
    void aPayloadThatIsNotTheTypesJsonFailsNamingTheTypeAndTheConverters() {
        byte[] payload = "hello".getBytes(StandardCharsets.UTF_8);

        assertThatExceptionOfType(PayloadConversionException.class)
                .isThrownBy(() -> conversion.fromPayload(payload, Greeting.class))
                .withMessageStartingWith("Cannot convert a 5-byte payload to io.rdma.spring.convert.Greeting with"
                        + " [ByteArrayMessageConverter, StringMessageConverter, JacksonJsonMessageConverter]: ")
                .satisfies(e -> assertThat(e.type()).isEqualTo(Greeting.class));
    }

    /** Jackson cannot write a bean whose getter throws. */
    public static final class Unwritable {
        public String getText() {
            throw new IllegalStateException("no text");
        }
    }

    @Test
    void aValueTheConverterCannotWriteFailsNamingItsClass() {
        assertThatExceptionOfType(PayloadConversionException.class)
                .isThrownBy(() -> conversion.toPayload(new Unwritable()))
                .withMessageStartingWith("Cannot convert a " + Unwritable.class.getName() + " to a payload with"
                        + " [ByteArrayMessageConverter, StringMessageConverter, JacksonJsonMessageConverter]: ")
                .withMessageContaining("no text");
    }

    @Test
    void aTypeNoConverterReadsFailsRatherThanReturnNull() {
        RdmaMessageConversion bytesOnly = new RdmaMessageConversion(
                new CompositeMessageConverter(List.of(new ByteArrayMessageConverter())));

        assertThatExceptionOfType(PayloadConversionException.class)
                .isThrownBy(() -> bytesOnly.fromPayload(new byte[] {'x'}, String.class))
                .withMessageStartingWith("Cannot convert a 1-byte payload to java.lang.String: no converter of"
                        + " [ByteArrayMessageConverter] reads it")
                .withMessageEndingWith("or give RdmaMessageConversion a MessageConverter for java.lang.String");
        assertThatExceptionOfType(PayloadConversionException.class)
                .isThrownBy(() -> bytesOnly.toPayload("x"))
                .withMessageStartingWith("Cannot convert a java.lang.String to a payload: no converter of"
                        + " [ByteArrayMessageConverter] writes it");
    }

    @Test
    void aConverterThatWritesTextRatherThanBytesFails() {
        StringMessageConverter toText = new StringMessageConverter();
        toText.setSerializedPayloadClass(String.class);
        RdmaMessageConversion text = new RdmaMessageConversion(toText);

        assertThatExceptionOfType(PayloadConversionException.class)
                .isThrownBy(() -> text.toPayload("x"))
                .withMessageContaining("StringMessageConverter wrote a java.lang.String, not the byte[]");
    }

    @Test
    void aUserConverterTakesEveryTypeBeyondBytesAndText() {
        RdmaMessageConversion custom = new RdmaMessageConversion(
                RdmaMessageConversion.defaultConverter(new GreetingAsTextConverter()));

        assertThat(custom.toPayload(new Greeting("hi", 3))).asString(StandardCharsets.UTF_8).isEqualTo("hi*3");
        assertThat(custom.fromPayload("yo*4".getBytes(StandardCharsets.UTF_8), Greeting.class))
                .isEqualTo(new Greeting("yo", 4));
        assertThat(custom.toPayload("plain")).asString(StandardCharsets.UTF_8).isEqualTo("plain");
    }
}
