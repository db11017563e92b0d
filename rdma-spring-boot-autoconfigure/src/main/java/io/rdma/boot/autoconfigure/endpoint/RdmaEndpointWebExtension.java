package io.rdma.boot.autoconfigure.endpoint;

import io.rdma.boot.autoconfigure.endpoint.RdmaEndpoint.CompletionCounterDescriptor;
import io.rdma.verbs.api.CompletionCounter;
import io.rdma.verbs.api.Unsigned64;
import io.rdma.verbs.api.VerbsException;

import java.math.BigInteger;
import java.util.Optional;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * {@code POST /actuator/rdma/{device}/{counter}} with {@code {"completions": n, "errors": m}}
 * (either may be left out; {@code 0} resets): sets a declared completion counter with
 * {@code ibv_set_comp_cntr} and {@code ibv_set_err_comp_cntr}, and answers its values. Over HTTP
 * only, so that a refusal has a status and says why: 403 while
 * {@code rdma.endpoint.counter-writes.enabled} is false (the default), 404 for a device or
 * counter that is not declared, 400 for a value that is missing, negative or above the counter's
 * maximum. A set loses the completions counted meanwhile, as ibv_create_comp_cntr(3) warns.
 */
@EndpointWebExtension(endpoint = RdmaEndpoint.class)
public class RdmaEndpointWebExtension {

    private static final int STATUS_FORBIDDEN = 403;

    /** Why a write was refused, for the operator who sent it. */
    public record CounterWriteRefusal(String error) {
    }

    private final RdmaEndpoint endpoint;
    private final boolean writesEnabled;

    public RdmaEndpointWebExtension(RdmaEndpoint endpoint, boolean writesEnabled) {
        this.endpoint = endpoint;
        this.writesEnabled = writesEnabled;
    }

    @WriteOperation
    public WebEndpointResponse<Object> setCompletionCounter(@Selector String device, @Selector String counter,
                                                            @Nullable BigInteger completions,
                                                            @Nullable BigInteger errors) {
        if (!writesEnabled) {
            return refuse(STATUS_FORBIDDEN, "completion counter writes are disabled; set "
                    + RdmaEndpointProperties.PREFIX + ".counter-writes.enabled=true to allow them");
        }
        Optional<CompletionCounter> target = endpoint.openCompletionCounter(device, counter);
        if (target.isEmpty()) {
            return refuse(WebEndpointResponse.STATUS_NOT_FOUND, "no completion counter '" + counter
                    + "' is declared on device '" + device + "'");
        }
        if (completions == null && errors == null) {
            return refuse(WebEndpointResponse.STATUS_BAD_REQUEST,
                    "give \"completions\", \"errors\" or both; 0 resets");
        }
        CompletionCounter resource = target.get();
        BigInteger max = Unsigned64.toBigInteger(resource.maxValue());
        for (BigInteger value : new BigInteger[] {completions, errors}) {
            if (value != null && (value.signum() < 0 || value.compareTo(max) > 0)) {
                return refuse(WebEndpointResponse.STATUS_BAD_REQUEST, value + " is outside 0 to " + max
                        + ", the counter's maximum");
            }
        }
        try {
            // a u64 above 2^63 - 1 is the negative long of the same 64 bits, which the verbs take
            if (completions != null) {
                resource.setCompletions(completions.longValue());
            }
            if (errors != null) {
                resource.setErrors(errors.longValue());
            }
        } catch (VerbsException e) {
            return refuse(WebEndpointResponse.STATUS_BAD_REQUEST, e.getMessage());
        }
        Optional<CompletionCounterDescriptor> written = endpoint.completionCounter(device, counter);
        return written.<WebEndpointResponse<Object>>map(WebEndpointResponse::new)
                .orElseGet(() -> refuse(WebEndpointResponse.STATUS_NOT_FOUND, "completion counter '" + counter
                        + "' was closed"));
    }

    private static WebEndpointResponse<Object> refuse(int status, String error) {
        return new WebEndpointResponse<>(new CounterWriteRefusal(error), status);
    }
}
