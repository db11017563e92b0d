package io.rdma.spring.convert;

import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;
import org.springframework.core.ResolvableType;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.converter.ByteArrayMessageConverter;
import org.springframework.messaging.converter.CompositeMessageConverter;
import org.springframework.messaging.converter.JacksonJsonMessageConverter;
import org.springframework.messaging.converter.MessageConverter;
import org.springframework.messaging.converter.SmartMessageConverter;
import org.springframework.messaging.converter.StringMessageConverter;
import org.springframework.messaging.support.GenericMessage;
import org.springframework.messaging.support.MessageBuilder;
import org.springframework.util.ClassUtils;

/**
 * Converts between the payload of an RDMA message and the values an application sends and
 * receives, through a Spring {@link MessageConverter}: what a template sends for a value, what a
 * listener parameter or a caller waiting for a reply gets for a payload.
 *
 * <p>An RDMA message is bare bytes: no content-type header travels with it. The converters are
 * therefore asked in order, without a content type, and the Java type alone picks the
 * representation: the class of the value written, the type a payload is read as. Both ends must
 * agree on that representation, as they agree on the type. The {@linkplain #defaultConverter()
 * default chain} writes and reads
 * <ul>
 * <li>{@code byte[]} as is,</li>
 * <li>{@code String} as UTF-8,</li>
 * <li>every other type as JSON, through Jackson 3's {@code JsonMapper}, when Jackson
 * ({@code tools.jackson.core:jackson-databind}) is on the class path; without it, only
 * {@code byte[]} and {@code String} convert.</li>
 * </ul>
 * A {@code byte[]} value is the payload itself and a payload read as {@code byte[]} (or
 * {@code Object}) is returned as it arrived, without asking a converter, as Spring's
 * {@code @Payload} resolution does.
 *
 * <p>A conversion never returns null: one that no converter performs, or that a converter fails,
 * throws a {@link PayloadConversionException} naming the type and the converters asked.
 *
 * <p>Thread-safe when its converter is, as Spring's are.
 */
public final class RdmaMessageConversion {

    private static final boolean JSON_PRESENT = ClassUtils.isPresent("tools.jackson.databind.json.JsonMapper",
            RdmaMessageConversion.class.getClassLoader());

    private final MessageConverter converter;
    /** The converters asked, by name, for the messages of conversions that fail. */
    private final String converters;
    private final SmartMessageConverter messageConverter = new StrictMessageConverter();

    /** Conversion through the {@link #defaultConverter() default chain}. */
    public RdmaMessageConversion() {
        this(defaultConverter());
    }

    public RdmaMessageConversion(MessageConverter converter) {
        this.converter = converter;
        this.converters = describe(converter);
    }

    /**
     * {@code byte[]}, then {@code String} (UTF-8), then, for every other type, JSON through a
     * {@code JsonMapper} with the Jackson modules found on the class path, when Jackson 3 is there.
     */
    public static CompositeMessageConverter defaultConverter() {
        List<MessageConverter> converters = bytesAndText();
        if (JSON_PRESENT) {
            converters.add(new JacksonJsonMessageConverter());
        }
        return new CompositeMessageConverter(converters);
    }

    /**
     * {@code byte[]}, then {@code String} (UTF-8), then {@code otherTypes} for every other type:
     * e.g. {@code new JacksonJsonMessageConverter(jsonMapper)} with the application's own mapper.
     */
    public static CompositeMessageConverter defaultConverter(MessageConverter otherTypes) {
        List<MessageConverter> converters = bytesAndText();
        converters.add(otherTypes);
        return new CompositeMessageConverter(converters);
    }

    private static List<MessageConverter> bytesAndText() {
        List<MessageConverter> converters = new ArrayList<>();
        converters.add(new ByteArrayMessageConverter());
        converters.add(new StringMessageConverter());
        return converters;
    }

    /**
     * The payload to send for {@code value}: {@code value} itself when it is a {@code byte[]}.
     *
     * @throws PayloadConversionException when no converter writes the value's class, one fails,
     *                                    or what it writes is not a {@code byte[]}
     */
    public byte[] toPayload(Object value) {
        if (value instanceof byte[] bytes) {
            return bytes;
        }
        Class<?> type = value.getClass();
        Message<?> message;
        try {
            message = converter.toMessage(value, null);
        } catch (RuntimeException e) {
            throw new PayloadConversionException("Cannot convert a " + type.getName() + " to a payload with "
                    + converters + ": " + e.getMessage(), type, e);
        }
        if (message == null) {
            throw new PayloadConversionException("Cannot convert a " + type.getName() + " to a payload: no converter of "
                    + converters + " writes it" + remedy(type), type, null);
        }
        if (!(message.getPayload() instanceof byte[] payload)) {
            throw new PayloadConversionException("Cannot convert a " + type.getName() + " to a payload: "
                    + converters + " wrote a " + message.getPayload().getClass().getName()
                    + ", not the byte[] an RDMA message carries (a converter's serializedPayloadClass must be byte[])",
                    type, null);
        }
        return payload;
    }

    /**
     * {@code payload} read as {@code target}, a class or a generic type such as
     * {@code List<Greeting>}; {@code payload} itself when {@code target} is {@code byte[]} or
     * {@code Object}.
     *
     * @throws PayloadConversionException when no converter reads {@code target}, one fails (a
     *                                    payload that is not what the type expects), or what it
     *                                    returns is not a {@code target}
     */
    public Object fromPayload(byte[] payload, Type target) {
        Class<?> targetClass = ResolvableType.forType(target).toClass();
        Object hint = target instanceof Class<?> ? null : new GenericTargetParameter(target, targetClass);
        return read(new GenericMessage<>(payload, UnstampedMessageHeaders.NONE), targetClass, hint, target);
    }

    /** {@code payload} read as {@code target}, as {@link #fromPayload(byte[], Type)} reads it. */
    @SuppressWarnings("unchecked")
    public <T> T fromPayload(byte[] payload, Class<T> target) {
        return (T) fromPayload(payload, (Type) target);
    }

    /**
     * This conversion as a Spring {@link MessageConverter} of messages with {@code byte[]}
     * payloads, for the argument resolvers of listener methods: it reads and writes as
     * {@link #fromPayload} and {@link #toPayload} do, and so, unlike a converter in a chain,
     * throws a {@link PayloadConversionException} rather than return null.
     */
    public SmartMessageConverter messageConverter() {
        return messageConverter;
    }

    private Object read(Message<?> message, Class<?> targetClass, @Nullable Object hint, Type target) {
        Object payload = message.getPayload();
        if (targetClass.isInstance(payload)) {
            return payload;
        }
        Object value;
        try {
            value = converter instanceof SmartMessageConverter smart
                    ? smart.fromMessage(message, targetClass, hint)
                    : converter.fromMessage(message, targetClass);
        } catch (RuntimeException e) {
            throw new PayloadConversionException("Cannot convert " + describe(payload) + " to " + target.getTypeName()
                    + " with " + converters + ": " + e.getMessage(), target, e);
        }
        if (value == null) {
            throw new PayloadConversionException("Cannot convert " + describe(payload) + " to " + target.getTypeName()
                    + ": no converter of " + converters + " reads it" + remedy(target), target, null);
        }
        if (!ClassUtils.isAssignableValue(targetClass, value)) {
            throw new PayloadConversionException("Cannot convert " + describe(payload) + " to "
                    + target.getTypeName() + ": " + converters + " returned a " + value.getClass().getName(), target, null);
        }
        return value;
    }

    /** What to do when no converter handles {@code type}; the payload carries no content type to choose by. */
    private static String remedy(Type type) {
        return " (RDMA messages carry no content type: the type alone picks the converter). "
                + (JSON_PRESENT ? "" : "JSON needs Jackson 3 (tools.jackson.core:jackson-databind) on the class path; ")
                + "or give RdmaMessageConversion a MessageConverter for " + type.getTypeName();
    }

    private static String describe(Object payload) {
        return payload instanceof byte[] bytes ? "a " + bytes.length + "-byte payload"
                : "a payload of " + payload.getClass().getName();
    }

    private static String describe(MessageConverter converter) {
        if (converter instanceof CompositeMessageConverter composite) {
            return composite.getConverters().stream().map(RdmaMessageConversion::describe)
                    .collect(Collectors.joining(", ", "[", "]"));
        }
        Class<?> type = converter.getClass();
        return type.getSimpleName().isEmpty() ? type.getName() : type.getSimpleName();
    }

    /** {@link #messageConverter()}. */
    private final class StrictMessageConverter implements SmartMessageConverter {

        @Override
        public Object fromMessage(Message<?> message, Class<?> targetClass) {
            return read(message, targetClass, null, targetClass);
        }

        @Override
        public Object fromMessage(Message<?> message, Class<?> targetClass, @Nullable Object conversionHint) {
            return read(message, targetClass, conversionHint, targetClass);
        }

        @Override
        public Message<?> toMessage(Object payload, @Nullable MessageHeaders headers) {
            return MessageBuilder.createMessage(toPayload(payload),
                    headers != null ? headers : UnstampedMessageHeaders.NONE);
        }

        @Override
        public Message<?> toMessage(Object payload, @Nullable MessageHeaders headers, @Nullable Object conversionHint) {
            return toMessage(payload, headers);
        }

        @Override
        public String toString() {
            return "RdmaMessageConversion" + converters;
        }
    }
}
