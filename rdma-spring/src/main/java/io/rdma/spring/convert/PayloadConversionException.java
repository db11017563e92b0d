package io.rdma.spring.convert;

import java.lang.reflect.Type;

import org.jspecify.annotations.Nullable;
import org.springframework.messaging.converter.MessageConversionException;

/**
 * A payload could not be converted to the type asked for, or a value to a payload. The message
 * names the type, the payload's size or the value's class, and the converters that were asked.
 */
public class PayloadConversionException extends MessageConversionException {

    private final Type type;

    PayloadConversionException(String description, Type type, @Nullable Throwable cause) {
        super(description, cause);
        this.type = type;
    }

    /** The type a payload was to be read as, or the class of the value that was to be written. */
    public Type type() {
        return type;
    }
}
