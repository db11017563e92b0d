package io.rdma.sample;

import io.rdma.spring.connection.NoServiceInstanceException;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * Background traffic, on with {@code sample.load.enabled=true}: {@code sample.load.workers}
 * virtual threads, each in a loop doing an echo, a PUT and a GET of a random one of
 * {@code sample.load.keys} keys, and one round in eight a DELETE, then pausing
 * {@code sample.load.pause} (only the GET where the device has no atomics, as the store is
 * read-only there). That moves every meter the dashboard shows for the declared
 * resources: completions of both CQs, the {@code sends} and {@code kv-one-sided} completion
 * counters, both pools' use, the port's traffic. In the default (last) lifecycle phase it starts
 * after the connections are up and stops before they go down; a failed round (a timeout under
 * overload, say) is logged and the loop goes on. While no instance of the service is connected
 * there is nothing to load: the workers wait, longer each time up to a second, and say so once.
 */
@Component
@ConditionalOnBooleanProperty("sample.load.enabled")
class LoadGenerator implements SmartLifecycle {

    private static final Log logger = LogFactory.getLog(LoadGenerator.class);
    private static final Duration LONGEST_WAIT_FOR_INSTANCE = Duration.ofSeconds(1);

    private final EchoClient echo;
    private final KvClient kv;
    private final int workers;
    private final int keys;
    private final Duration pause;
    private final AtomicLong rounds = new AtomicLong();
    private final List<Thread> threads = new ArrayList<>();
    /** Whether the workers wait for an instance: logged when that starts and ends, not per round. */
    private final AtomicBoolean waitingForInstance = new AtomicBoolean();
    private volatile boolean running;

    LoadGenerator(EchoClient echo, KvClient kv, SampleProperties properties) {
        this.echo = echo;
        this.kv = kv;
        this.workers = properties.load().workers();
        this.keys = properties.load().keys();
        this.pause = properties.load().pause();
    }

    @Override
    public void start() {
        running = true;
        for (int worker = 0; worker < workers; worker++) {
            threads.add(Thread.ofVirtual().name("sample-load-" + worker).start(this::run));
        }
        logger.info("Load generator: " + workers + " workers over " + keys + " keys, pausing " + pause);
    }

    private void run() {
        Duration wait = pause;
        while (running) {
            try {
                round();
                rounds.incrementAndGet();
                if (waitingForInstance.compareAndSet(true, false)) {
                    logger.info("Load generator: an instance of the service is connected again; load resumes");
                }
                wait = pause;
                Thread.sleep(pause);
            } catch (InterruptedException e) {
                return;
            } catch (NoServiceInstanceException e) {
                if (waitingForInstance.compareAndSet(false, true)) {
                    logger.info("Load generator: " + e.getMessage() + "; waiting for one");
                }
                wait = wait.multipliedBy(2).compareTo(LONGEST_WAIT_FOR_INSTANCE) > 0 ? LONGEST_WAIT_FOR_INSTANCE
                        : wait.multipliedBy(2);
                try {
                    Thread.sleep(wait);
                } catch (InterruptedException interrupted) {
                    return;
                }
            } catch (Exception e) {
                logger.warn("Load generator round failed: " + e);
            }
        }
    }

    private void round() throws Exception {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        String key = "load-" + random.nextInt(keys);
        try {
            echo.echo(key).get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof NoServiceInstanceException none) {
                throw none;
            }
            throw e;
        }
        if (kv.writable()) {
            kv.put(key, ("value " + random.nextLong()).getBytes(StandardCharsets.UTF_8));
        }
        kv.get(key);
        if (kv.writable() && random.nextInt(8) == 0) {
            kv.delete(key);
        }
    }

    /** Rounds completed, failed ones not counted. */
    long rounds() {
        return rounds.get();
    }

    /** Stops the workers before the connections close under them. */
    @Override
    public void stop() {
        running = false;
        for (Thread thread : threads) {
            thread.interrupt();
        }
        for (Thread thread : threads) {
            try {
                thread.join(Duration.ofSeconds(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        threads.clear();
    }

    @Override
    public boolean isRunning() {
        return running;
    }
}
