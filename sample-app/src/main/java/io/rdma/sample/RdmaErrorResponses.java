package io.rdma.sample;

import io.rdma.spring.connection.NoServiceInstanceException;
import io.rdma.spring.template.SendQueueFullException;

import java.util.concurrent.TimeoutException;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * What an HTTP caller sees when the RDMA side is overloaded: a status that says "try again later"
 * rather than a 500, so that a client under back-pressure can tell it from a bug.
 */
@RestControllerAdvice
class RdmaErrorResponses {

    /** The peer did not answer within the timeout (sample.echo.timeout, sample.kv.timeout). */
    @ExceptionHandler(TimeoutException.class)
    ProblemDetail timedOut(TimeoutException e) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.GATEWAY_TIMEOUT, "the RDMA peer did not answer in time");
    }

    /** No instance of the service is connected: none is registered yet, or none could be reached. */
    @ExceptionHandler(NoServiceInstanceException.class)
    ProblemDetail noInstance(NoServiceInstanceException e) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, e.getMessage());
    }

    /** The queue pair's send queue stayed full for its whole send-timeout. */
    @ExceptionHandler(SendQueueFullException.class)
    ProblemDetail sendQueueFull(SendQueueFullException e) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, e.getMessage());
    }
}
