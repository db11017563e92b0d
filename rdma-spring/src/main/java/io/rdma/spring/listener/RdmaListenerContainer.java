package io.rdma.spring.listener;

import java.util.List;
import java.util.concurrent.CountDownLatch;

import org.springframework.context.SmartLifecycle;

/**
 * The container of one {@link RdmaListener} method, found by its {@link #id()} in the
 * {@link RdmaListenerEndpointRegistry}: it runs the method for the messages of the channels it
 * listens on, with the listener's concurrency, dispatch and error handler. Stopped or paused, it
 * starts no invocation: messages that arrive wait, keeping their receive buffers, so that the
 * sender meets RNR back-pressure rather than loss, and are handled in order once it runs again.
 * The receive queues stay filled meanwhile, and replies to the application's own requests on
 * those channels go on arriving.
 *
 * <p>Stopping also waits for the invocations in flight: {@link #stop(Runnable)} calls back once
 * the last one ended, which is how a graceful shutdown drains them (bounded by
 * {@code spring.lifecycle.timeout-per-shutdown-phase} under Boot).
 */
public final class RdmaListenerContainer implements SmartLifecycle {

    private final String id;
    private final String description;
    private final List<String> listensTo;
    private final boolean autoStartup;
    private final ListenerInvoker invoker;
    private volatile boolean running;

    RdmaListenerContainer(String id, String description, List<String> listensTo, boolean autoStartup,
                          ListenerInvoker invoker) {
        this.id = id;
        this.description = description;
        this.listensTo = List.copyOf(listensTo);
        this.autoStartup = autoStartup;
        this.invoker = invoker;
    }

    /** {@link RdmaListener#id()}, or the bean's class and method when it sets none. */
    public String id() {
        return id;
    }

    /** What it listens to, as the annotation says: {@code queue pair 'rpc'}, {@code connection listener 'echo'}, .... */
    public List<String> listensTo() {
        return listensTo;
    }

    /** Starts (again) invoking the method, first for the messages that waited. */
    @Override
    public void start() {
        running = true;
        invoker.resume();
    }

    /** Starts no more invocations, and returns once those in flight ended. */
    @Override
    public void stop() {
        CountDownLatch idle = new CountDownLatch(1);
        stop(idle::countDown);
        try {
            idle.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Starts no more invocations, and runs {@code callback} once those in flight ended. */
    @Override
    public void stop(Runnable callback) {
        running = false;
        invoker.pause(callback);
    }

    /** Starts no more invocations until {@link #resume()}; those in flight go on. */
    public void pause() {
        invoker.pause();
    }

    /** Runs again after {@link #pause()}, unless stopped. */
    public void resume() {
        if (running) {
            invoker.resume();
        }
    }

    /** Whether it runs and is not paused: whether a message that arrives now is handled. */
    public boolean isPaused() {
        return running && invoker.isPaused();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public boolean isAutoStartup() {
        return autoStartup;
    }

    /** The context closes: what waits is given back, the workers end. */
    void close() {
        running = false;
        invoker.terminate();
    }

    @Override
    public String toString() {
        return "listener container '" + id + "' (" + description + ")";
    }
}
