package io.rdma.spring.listener;

import io.rdma.spring.convert.RdmaMessageConversion;
import io.rdma.spring.convert.UnstampedMessageHeaders;

import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

import org.jspecify.annotations.Nullable;
import org.springframework.core.MethodParameter;
import org.springframework.core.convert.ConversionService;
import org.springframework.core.convert.TypeDescriptor;
import org.springframework.core.convert.support.DefaultConversionService;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Headers;
import org.springframework.messaging.handler.annotation.ValueConstants;
import org.springframework.messaging.handler.annotation.support.HeaderMethodArgumentResolver;
import org.springframework.messaging.handler.annotation.support.HeadersMethodArgumentResolver;
import org.springframework.messaging.handler.annotation.support.MessageMethodArgumentResolver;
import org.springframework.messaging.handler.annotation.support.PayloadMethodArgumentResolver;
import org.springframework.messaging.handler.invocation.HandlerMethodArgumentResolver;
import org.springframework.messaging.handler.invocation.HandlerMethodArgumentResolverComposite;
import org.springframework.messaging.handler.invocation.InvocableHandlerMethod;
import org.springframework.messaging.support.GenericMessage;

/**
 * An {@link RdmaListener} method with typed parameters and a typed reply, called as
 * spring-messaging calls a {@code @MessageMapping} method and spring-kafka a
 * {@code @KafkaListener} method: through an {@link InvocableHandlerMethod} whose argument
 * resolvers give
 * <ul>
 * <li>the payload, converted by the {@link RdmaMessageConversion} to the parameter's type, to one
 * parameter annotated {@code @Payload} or, without annotation, of any type;</li>
 * <li>a header of the receive ({@link RdmaHeaders}) to a {@code @Header} parameter, converted to
 * its type (e.g. the immediate data as {@code int}, {@code long} or {@code Integer});</li>
 * <li>all of them to a {@code @Headers Map<String, Object>} or {@code MessageHeaders} parameter;</li>
 * <li>the message to a {@code Message<T>} parameter, its payload converted to {@code T}.</li>
 * </ul>
 * A value the method returns is the reply, converted to bytes; void, or null returned, is no reply.
 * The signature is checked when this is built, so a method that could never be called fails the
 * start, not its first message.
 *
 * <p>The converted path costs a message, its headers, the arguments and a reflective call per
 * message. A method that takes exactly one {@code byte[]}, {@link ReceivedMessage} or
 * {@link ReceivedBuffer} and returns {@code byte[]} or void needs none of it
 * ({@link #needsConversion(Method)} is false) and is called directly.
 *
 * <p>An empty payload (an RDMA write with immediate data) is not a payload Spring gives a required
 * payload parameter: such a method declares {@code @Payload(required = false)} or takes headers
 * only.
 *
 * <p>Thread-safe: one instance serves every worker of its listener at once, as spring-kafka's
 * handler method serves the consumers of a concurrent container.
 */
public final class TypedListenerMethod {

    /** The parameters of the direct form, each the whole received message. */
    private static final Set<Class<?>> RECEIVE_PARAMETERS = Set.of(byte[].class, ReceivedMessage.class,
            ReceivedBuffer.class);
    private static final String HEADER_NAMES = "RdmaHeaders.RECEIVED_CHANNEL ('" + RdmaHeaders.RECEIVED_CHANNEL
            + "', a String), RdmaHeaders.IMMEDIATE_DATA ('" + RdmaHeaders.IMMEDIATE_DATA
            + "', an Integer) and RdmaHeaders.CORRELATION_ID ('" + RdmaHeaders.CORRELATION_ID + "', an Integer)";
    private static final String ALLOWED = "an @RdmaListener method takes at most one payload parameter"
            + " (unannotated or @Payload, of a type the converter reads, or Message<T>), @Header parameters of "
            + HEADER_NAMES + ", and @Headers Map or MessageHeaders parameters, and returns void or a reply of a"
            + " type the converter writes; or it takes exactly one byte[], ReceivedMessage or ReceivedBuffer"
            + " and returns byte[] or void";

    private final InvocableHandlerMethod method;
    private final RdmaMessageConversion conversion;

    /**
     * @throws InvalidListenerMethodException when the method's signature cannot be served: two
     *                                        payload parameters, a header a receive does not give
     *                                        or that does not convert to its parameter's type, a
     *                                        {@code ReceivedMessage} or {@code ReceivedBuffer}
     *                                        beside other parameters, or a {@code Message},
     *                                        {@code Future} or {@code CompletionStage} returned
     */
    public TypedListenerMethod(Object bean, Method method, RdmaMessageConversion conversion) {
        ConversionService headerConversion = DefaultConversionService.getSharedInstance();
        HandlerMethodArgumentResolverComposite resolvers = new HandlerMethodArgumentResolverComposite().addResolvers(
                new HeaderMethodArgumentResolver(headerConversion, null),
                new HeadersMethodArgumentResolver(),
                new MessageMethodArgumentResolver(conversion.messageConverter()),
                new PayloadMethodArgumentResolver(conversion.messageConverter(), null, true));
        InvocableHandlerMethod invocable = new InvocableHandlerMethod(bean, method);
        invocable.setMessageMethodArgumentResolvers(resolvers);
        checkParameters(method, invocable.getMethodParameters(), resolvers, headerConversion);
        checkReturnType(method);
        this.method = invocable;
        this.conversion = conversion;
    }

    /**
     * Whether {@code method} takes or returns anything but the direct form, one {@code byte[]},
     * {@link ReceivedMessage} or {@link ReceivedBuffer} parameter (without {@code @Header}) and a
     * {@code byte[]} or void return, and so is called through a {@code TypedListenerMethod}.
     */
    public static boolean needsConversion(Method method) {
        if (method.getParameterCount() != 1) {
            return true;
        }
        Parameter parameter = method.getParameters()[0];
        boolean receiveParameter = RECEIVE_PARAMETERS.contains(parameter.getType())
                && !parameter.isAnnotationPresent(Header.class) && !parameter.isAnnotationPresent(Headers.class);
        Class<?> returnType = method.getReturnType();
        return !receiveParameter || (returnType != void.class && returnType != byte[].class);
    }

    /**
     * Calls the method for a message received on {@code channel}.
     *
     * @param immediateData   the immediate data, when {@code hasImmediateData}
     * @param correlationId   the correlation id of a request of request/reply, else null
     * @return the reply the method returned, converted; null when it returned none (void or null)
     * @throws RuntimeException what the method threw, a checked exception in an
     *                          {@link IllegalStateException}; a payload that does not convert to
     *                          the parameter's type, a {@code PayloadConversionException}; a
     *                          missing required header or empty required payload, Spring's
     *                          {@code MessagingException} saying which
     */
    public byte @Nullable [] invoke(String channel, byte[] payload, boolean hasImmediateData, int immediateData,
                                    @Nullable Integer correlationId) {
        Map<String, Object> headers = new HashMap<>(4);
        headers.put(RdmaHeaders.RECEIVED_CHANNEL, channel);
        if (hasImmediateData) {
            headers.put(RdmaHeaders.IMMEDIATE_DATA, immediateData);
        }
        if (correlationId != null) {
            headers.put(RdmaHeaders.CORRELATION_ID, correlationId);
        }
        Object reply;
        try {
            reply = method.invoke(new GenericMessage<>(payload, new UnstampedMessageHeaders(headers)));
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("@RdmaListener method " + method.getMethod().toGenericString()
                    + " threw " + e, e);
        }
        return reply == null ? null : conversion.toPayload(reply);
    }

    private static void checkParameters(Method method, MethodParameter[] parameters,
                                        HandlerMethodArgumentResolverComposite resolvers,
                                        ConversionService headerConversion) {
        @Nullable MethodParameter payload = null;
        for (MethodParameter parameter : parameters) {
            if (parameter.getParameterType() == ReceivedMessage.class
                    || parameter.getParameterType() == ReceivedBuffer.class) {
                throw invalid(method, parameter, "is a " + parameter.getParameterType().getSimpleName()
                        + ", which is taken only as the only parameter of a method that returns byte[] or void"
                        + " (else take @Payload byte[] and @Header(RdmaHeaders.IMMEDIATE_DATA))");
            }
            HandlerMethodArgumentResolver resolver = resolverOf(parameter, resolvers);
            if (resolver instanceof HeaderMethodArgumentResolver) {
                checkHeader(method, parameter, headerConversion);
            } else if (resolver instanceof MessageMethodArgumentResolver
                    || resolver instanceof PayloadMethodArgumentResolver) {
                if (payload != null) {
                    throw invalid(method, parameter, "is a second payload parameter, beside parameter "
                            + describe(method, payload) + "; a message has one payload (a header parameter"
                            + " is annotated @Header)");
                }
                payload = parameter;
            }
        }
    }

    private static void checkHeader(Method method, MethodParameter parameter, ConversionService headerConversion) {
        Header header = Objects.requireNonNull(parameter.getParameterAnnotation(Header.class));
        Parameter declared = method.getParameters()[parameter.getParameterIndex()];
        if (header.name().isEmpty() && !declared.isNamePresent()) {
            throw invalid(method, parameter, "names no header, and its own name, which would, was not compiled"
                    + " in (javac -parameters): name it, as in @Header(RdmaHeaders.IMMEDIATE_DATA)");
        }
        String name = header.name().isEmpty() ? declared.getName() : header.name();
        Class<?> valueType = switch (name) {
            case RdmaHeaders.RECEIVED_CHANNEL -> String.class;
            case RdmaHeaders.IMMEDIATE_DATA, RdmaHeaders.CORRELATION_ID -> Integer.class;
            default -> throw invalid(method, parameter, "takes header '" + name + "', which a received RDMA"
                    + " message does not have; it has " + HEADER_NAMES);
        };
        MethodParameter target = parameter.nestedIfOptional();
        if (!headerConversion.canConvert(TypeDescriptor.valueOf(valueType), new TypeDescriptor(target))) {
            throw invalid(method, parameter, "takes header '" + name + "', " + (valueType == Integer.class
                    ? "an Integer" : "a String") + ", which does not convert to " + target.getNestedGenericParameterType().getTypeName());
        }
        if (!header.required() && ValueConstants.DEFAULT_NONE.equals(header.defaultValue())
                && parameter.getParameterType().isPrimitive()) {
            throw invalid(method, parameter, "takes header '" + name + "' with required = false, so null when"
                    + " the message has none, into a primitive; take " + valueType.getSimpleName() + " or Optional<"
                    + valueType.getSimpleName() + ">, or give a defaultValue");
        }
    }

    private static void checkReturnType(Method method) {
        Class<?> returnType = method.getReturnType();
        if (Message.class.isAssignableFrom(returnType) || Future.class.isAssignableFrom(returnType)
                || CompletionStage.class.isAssignableFrom(returnType)) {
            throw new InvalidListenerMethodException(method, "it returns a " + returnType.getName()
                    + ", but a reply is returned as the value itself, when the method returns; " + ALLOWED);
        }
    }

    /** The resolver that gives {@code parameter}, as the composite picks it: the first that supports it. */
    private static HandlerMethodArgumentResolver resolverOf(MethodParameter parameter,
                                                            HandlerMethodArgumentResolverComposite resolvers) {
        return resolvers.getResolvers().stream().filter(resolver -> resolver.supportsParameter(parameter))
                .findFirst().orElseThrow();
    }

    private static InvalidListenerMethodException invalid(Method method, MethodParameter parameter, String problem) {
        return new InvalidListenerMethodException(method, "parameter " + describe(method, parameter) + " " + problem
                + "; " + ALLOWED);
    }

    private static String describe(Method method, MethodParameter parameter) {
        int index = parameter.getParameterIndex();
        return index + " (" + parameter.getGenericParameterType().getTypeName() + " "
                + method.getParameters()[index].getName() + ")";
    }
}
