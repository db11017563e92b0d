package io.rdma.spring.convert;

import java.nio.charset.StandardCharsets;

import org.jspecify.annotations.Nullable;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.converter.AbstractMessageConverter;
import org.springframework.util.MimeType;

/** An application's own converter: a {@link Greeting} as {@code text*count}. */
final class GreetingAsTextConverter extends AbstractMessageConverter {

    GreetingAsTextConverter() {
        super(new MimeType("application", "x-greeting"));
    }

    @Override
    protected boolean supports(Class<?> type) {
        return type == Greeting.class;
    }

    @Override
    protected Object convertFromInternal(Message<?> message, Class<?> targetClass, @Nullable Object conversionHint) {
        String[] parts = new String((byte[]) message.getPayload(), StandardCharsets.UTF_8).split("\\*");
        return new Greeting(parts[0], Integer.parseInt(parts[1]));
    }

    @Override
    protected Object convertToInternal(Object payload, @Nullable MessageHeaders headers,
                                       @Nullable Object conversionHint) {
        Greeting greeting = (Greeting) payload;
        return (greeting.text() + "*" + greeting.count()).getBytes(StandardCharsets.UTF_8);
    }
}
