package io.rdma.spring.convert;

import java.util.Map;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Jackson is optional: an application without it converts byte[] and String, and a type that
 * needs JSON fails saying so, instead of the conversion failing to load.
 */
class RdmaMessageConversionWithoutJacksonTests {

    @Test
    void textStillConvertsAndARecordFailsNamingTheMissingJackson() throws Exception {
        ClassLoader withoutJackson = new JacksonHidingClassLoader(getClass().getClassLoader());
        @SuppressWarnings("unchecked")
        Supplier<Map<String, String>> scenario = (Supplier<Map<String, String>>) withoutJackson
                .loadClass(ConversionWithoutJackson.class.getName()).getConstructor().newInstance();

        Map<String, String> outcome = scenario.get();

        assertThat(outcome).containsEntry("text written", "grüß dich").containsEntry("text read", "grüß dich");
        assertThat(outcome.get("record read")).isEqualTo("Cannot convert a 23-byte payload to"
                + " io.rdma.spring.convert.Greeting: no converter of [ByteArrayMessageConverter, StringMessageConverter]"
                + " reads it (RDMA messages carry no content type: the type alone picks the converter). JSON needs"
                + " Jackson 3 (tools.jackson.core:jackson-databind) on the class path; or give RdmaMessageConversion"
                + " a MessageConverter for io.rdma.spring.convert.Greeting");
        assertThat(outcome.get("record written")).startsWith("Cannot convert a io.rdma.spring.convert.Greeting to a"
                + " payload: no converter of [ByteArrayMessageConverter, StringMessageConverter] writes it")
                .contains("JSON needs Jackson 3");
    }
}
