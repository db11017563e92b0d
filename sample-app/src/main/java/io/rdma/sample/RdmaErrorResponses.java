package io.rdma.sample;

import io.rdma.spring.connection.NoServiceInstanceException;
import io.rdma.spring.template.PayloadTooLargeException;
import io.rdma.spring.template.RdmaChannelDownException;
import io.rdma.spring.template.RdmaOperationException;
import io.rdma.spring.template.RdmaRemoteException;
import io.rdma.spring.template.SendQueueFullException;

import java.util.concurrent.TimeoutException;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * What an HTTP caller sees when the RDMA side is overloaded or fails: a status that says "try
 * again later" (503, 504), that the remote side failed (502), that the device cannot do it (501),
 * or that the input is too large (413), with what the starter reported (the completion status,
 * the channel), rather than a 500, so that a client can tell them from a bug.
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

    /**
     * The fabric failed the operation: the completion status says how (RETRY_EXC_ERR when the peer
     * stopped answering, WR_FLUSH_ERR when the queue pair failed or is reconnecting).
     */
    @ExceptionHandler(RdmaOperationException.class)
    ProblemDetail fabricFailed(RdmaOperationException e) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, e.getMessage());
        problem.setProperty("completionStatus", e.status().name());
        return problem;
    }

    /** The channel to the instance is down (reconnecting) or gone. */
    @ExceptionHandler(RdmaChannelDownException.class)
    ProblemDetail channelDown(RdmaChannelDownException e) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, e.getMessage());
    }

    /** The peer's listener threw on the request. */
    @ExceptionHandler(RdmaRemoteException.class)
    ProblemDetail remoteFailed(RdmaRemoteException e) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.BAD_GATEWAY, e.getMessage());
    }

    /** A message longer than the channel's buffers: refused before anything was sent. */
    @ExceptionHandler(PayloadTooLargeException.class)
    ProblemDetail tooLarge(PayloadTooLargeException e) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.CONTENT_TOO_LARGE, e.getMessage());
    }

    /** The device lacks what the operation needs (a PUT or DELETE on a device without atomics). */
    @ExceptionHandler(KvWritesUnsupportedException.class)
    ProblemDetail unsupported(KvWritesUnsupportedException e) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.NOT_IMPLEMENTED, e.getMessage());
    }

    /** The queue pair's send queue stayed full for its whole send-timeout. */
    @ExceptionHandler(SendQueueFullException.class)
    ProblemDetail sendQueueFull(SendQueueFullException e) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, e.getMessage());
    }
}
