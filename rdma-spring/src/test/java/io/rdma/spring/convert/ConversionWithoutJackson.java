package io.rdma.spring.convert;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What the default conversion does where Jackson is absent, run inside a
 * {@link JacksonHidingClassLoader}: it reports in JDK types only, as its own classes are not the
 * test's.
 */
public final class ConversionWithoutJackson implements Supplier<Map<String, String>> {

    @Override
    public Map<String, String> get() {
        RdmaMessageConversion conversion = new RdmaMessageConversion();
        Map<String, String> outcome = new LinkedHashMap<>();
        byte[] text = conversion.toPayload("grüß dich");
        outcome.put("text written", new String(text, StandardCharsets.UTF_8));
        outcome.put("text read", (String) conversion.fromPayload(text, String.class));
        try {
            conversion.fromPayload("{\"text\":\"hi\",\"count\":1}".getBytes(StandardCharsets.UTF_8), Greeting.class);
            outcome.put("record read", "converted");
        } catch (PayloadConversionException e) {
            outcome.put("record read", e.getMessage());
        }
        try {
            conversion.toPayload(new Greeting("hi", 1));
            outcome.put("record written", "converted");
        } catch (PayloadConversionException e) {
            outcome.put("record written", e.getMessage());
        }
        return outcome;
    }
}
