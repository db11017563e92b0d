package io.rdma.verbs.loopback;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A close racing a use from another thread: the use runs in a loop on a thread of its own,
 * the resource is closed once the loop runs, and what ended the loop is returned. A correct
 * resource ends it with {@code ResourceClosedException}, never by touching what the close
 * destroyed (which the simulated fabric reports loudly) and never by hanging.
 */
final class CloseRace {

    private CloseRace() {
    }

    /** Closes {@code resource} while {@code use} runs without pause; returns what ended the loop. */
    static Throwable closeWhileUsed(AutoCloseable resource, ThrowingCallable use) throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        CompletableFuture<Throwable> ended = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> {
            try {
                while (true) {
                    use.call();
                    running.countDown();
                }
            } catch (Throwable t) {
                ended.complete(t);
            }
        });
        running.await(LoopbackFabric.WAIT.toMillis(), TimeUnit.MILLISECONDS);
        resource.close();
        return ended.get(LoopbackFabric.WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    /**
     * Closes {@code resource} while a thread is blocked in {@code wait} (a wait far longer than
     * the test); returns what ended the wait, which must come promptly after the close.
     */
    static Throwable closeWhileBlocked(AutoCloseable resource, ThrowingCallable wait) throws Exception {
        CompletableFuture<Throwable> ended = new CompletableFuture<>();
        Thread waiter = Thread.ofPlatform().daemon().start(() -> {
            try {
                wait.call();
                ended.complete(new AssertionError("the wait returned instead of failing"));
            } catch (Throwable t) {
                ended.complete(t);
            }
        });
        awaitBlocked(waiter);
        resource.close();
        return ended.get(LoopbackFabric.WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    /**
     * Until {@code thread} sleeps on a lock or condition (the simulated fabric's wait), or, since
     * a native wait polls while RUNNABLE, until it had long enough to be inside poll(2).
     */
    private static void awaitBlocked(Thread thread) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMillis(300).toNanos();
        while (System.nanoTime() < deadline) {
            Thread.State state = thread.getState();
            if (state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING) {
                return;
            }
            Thread.sleep(1);
        }
        assertThat(thread.isAlive()).as("the waiter is still waiting").isTrue();
    }
}
