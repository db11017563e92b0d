package io.rdma.spring.listener;

import io.rdma.spring.PlainRdmaConfiguration;
import io.rdma.spring.SimulatedLoopback;
import io.rdma.spring.template.RdmaTemplate;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Listener containers through their registry, in a plain Spring context: they start once the
 * context has refreshed, stop and start, pause (messages wait, and are handled in order after
 * resume), stop and start again with a paused and restarted context over a fabric that stays, and
 * a closing context waits for the invocation in flight.
 */
class RdmaListenerContainerTests {

    private static final long WAIT_SECONDS = 30;
    /** How long a message that must not be handled is given to be handled all the same. */
    private static final long QUIET_MILLIS = 300;

    @Test
    void aContainerStartsOnlyOnceTheContextHasRefreshedAndMessagesThatCameEarlierWait() throws Exception {
        try (AnnotationConfigApplicationContext context = PlainRdmaConfiguration.run(Orders.class, EarlySender.class)) {
            EarlySender early = context.getBean(EarlySender.class);
            assertThat(early.containerRunning).as("the container while lifecycle beans started").isFalse();
            assertThat(early.handledMeanwhile).as("messages handled before the context had refreshed").isZero();

            assertThat(context.getBean(RdmaListenerEndpointRegistry.class).listenerContainer("orders").isRunning())
                    .isTrue();
            Orders orders = context.getBean(Orders.class);
            await(() -> orders.received.size() == 1, "the message sent while the context started");
            assertThat(orders.received).containsExactly("early");
        }
    }

    @Test
    void aPausedContainerLeavesMessagesWaitingAndHandlesThemInOrderOnceResumed() throws Exception {
        try (AnnotationConfigApplicationContext context = PlainRdmaConfiguration.run(Orders.class)) {
            RdmaListenerContainer container = context.getBean(RdmaListenerEndpointRegistry.class)
                    .listenerContainer("orders");
            Orders orders = context.getBean(Orders.class);

            container.pause();
            assertThat(container.isPaused()).isTrue();
            send(context, "first", "second", "third");
            Thread.sleep(QUIET_MILLIS);
            assertThat(orders.received).as("handled while paused").isEmpty();

            container.resume();

            await(() -> orders.received.size() == 3, "the three messages after resume");
            assertThat(orders.received).containsExactly("first", "second", "third");
            assertThat(container.isPaused()).isFalse();
        }
    }

    @Test
    void aStoppedContainerHandlesNothingUntilStartedAgain() throws Exception {
        try (AnnotationConfigApplicationContext context = PlainRdmaConfiguration.run(Orders.class)) {
            RdmaListenerContainer container = context.getBean(RdmaListenerEndpointRegistry.class)
                    .listenerContainer("orders");
            Orders orders = context.getBean(Orders.class);

            container.stop();
            assertThat(container.isRunning()).isFalse();
            container.resume();
            send(context, "while stopped");
            Thread.sleep(QUIET_MILLIS);
            assertThat(orders.received).as("handled while stopped, resume notwithstanding").isEmpty();

            container.start();

            await(() -> orders.received.size() == 1, "the message after start");
            assertThat(orders.received).containsExactly("while stopped");
        }
    }

    /**
     * What Spring's test context cache does to a context no test uses now, and to it again when a
     * test does: the fabric stays (a message sent meanwhile arrives), the containers stop and start.
     */
    @Test
    void aPausedContextKeepsItsFabricAndItsContainersHandleMessagesOnceItRestarts() throws Exception {
        try (AnnotationConfigApplicationContext context = PlainRdmaConfiguration.run(Orders.class)) {
            RdmaListenerContainer container = context.getBean(RdmaListenerEndpointRegistry.class)
                    .listenerContainer("orders");
            Orders orders = context.getBean(Orders.class);
            send(context, "before");
            await(() -> orders.received.size() == 1, "the message before the pause");

            context.pause();
            assertThat(container.isRunning()).as("the container of a paused context").isFalse();
            send(context, "while paused");
            Thread.sleep(QUIET_MILLIS);
            assertThat(orders.received).as("handled while paused").containsExactly("before");

            context.restart();

            send(context, "after");
            await(() -> orders.received.size() == 3, "the messages of the pause and after it");
            assertThat(orders.received).containsExactly("before", "while paused", "after");
        }
    }

    @Test
    void aClosingContextWaitsForTheInvocationInFlight() throws Exception {
        AnnotationConfigApplicationContext context = PlainRdmaConfiguration.run(Blocking.class);
        try {
            Blocking blocking = context.getBean(Blocking.class);
            send(context, "slow");
            assertThat(blocking.started.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();

            Thread closing = Thread.ofPlatform().start(context::close);
            closing.join(QUIET_MILLIS);
            assertThat(closing.isAlive()).as("the close, while the invocation is in flight").isTrue();

            blocking.release.countDown();
            closing.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
            assertThat(closing.isAlive()).isFalse();
            assertThat(blocking.finished).as("the invocation ended before the close went on").isTrue();
        } finally {
            context.close();
        }
    }

    /**
     * A worker listener's method runs on the thread that polled its message, which handed the
     * polling on rather than waking a worker for it, and the queue is polled on while the method
     * blocks: a second message is handled meanwhile, on another thread.
     */
    @Test
    void aWorkerListenersMethodRunsOnTheThreadThatPolledItsMessageAndTheQueueIsPolledWhileItBlocks()
            throws Exception {
        try (AnnotationConfigApplicationContext context = PlainRdmaConfiguration.run(FirstBlocks.class)) {
            FirstBlocks listener = context.getBean(FirstBlocks.class);
            send(context, "first");
            await(() -> listener.threads.size() == 1, "the first invocation started");
            send(context, "second");
            await(() -> listener.threads.size() == 2, "the second message handled while the first blocks");
            listener.release.countDown();

            assertThat(listener.threads.getFirst().getName()).as("the first invocation's thread")
                    .startsWith("rdma-cq-cq0");
            assertThat(listener.threads.get(1)).isNotSameAs(listener.threads.getFirst());
        }
    }

    /**
     * Without a concurrency limit, invocations that block all get workers: the first as many as
     * the machine has processors on platform threads (woken directly), the rest on virtual
     * threads (a burst of blocking invocations costs no platform thread each).
     */
    @Test
    void workersBeyondTheProcessorsRunOnVirtualThreads() throws Exception {
        int processors = Runtime.getRuntime().availableProcessors();
        // within the server's receive queue, so that every message is delivered at once
        int messages = Math.min(processors + 2, SimulatedLoopback.MAX_RECV_WR - 2);
        try (AnnotationConfigApplicationContext context = PlainRdmaConfiguration.run(ThreadRecording.class)) {
            ThreadRecording recording = context.getBean(ThreadRecording.class);
            for (int i = 0; i < messages; i++) {
                send(context, "message " + i);
            }
            await(() -> recording.virtual.size() == messages, "every invocation started");
            recording.release.countDown();

            int onPlatformThreads = Math.min(messages, processors);
            assertThat(recording.virtual).as("invocations on platform threads")
                    .filteredOn(virtual -> !virtual).hasSize(onPlatformThreads);
            assertThat(recording.virtual).as("invocations on virtual threads")
                    .filteredOn(virtual -> virtual).hasSize(messages - onPlatformThreads);
        }
    }

    private static void send(AnnotationConfigApplicationContext context, String... messages) throws Exception {
        RdmaTemplate template = context.getBean(RdmaTemplate.class);
        for (String message : messages) {
            template.send(SimulatedLoopback.CLIENT, message.getBytes(StandardCharsets.UTF_8))
                    .get(WAIT_SECONDS, TimeUnit.SECONDS);
        }
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as(what + " within " + WAIT_SECONDS + " s").isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    static class Orders {
        final List<String> received = new CopyOnWriteArrayList<>();

        @RdmaListener(id = "orders", queuePair = SimulatedLoopback.SERVER, concurrency = 1)
        void receive(byte[] payload) {
            received.add(new String(payload, StandardCharsets.UTF_8));
        }
    }

    /**
     * A lifecycle bean of the application that starts after the RDMA beans (the pollers, the
     * listener processor) and before the context has refreshed: it sends a message then, and
     * looks whether it was handled.
     */
    static class EarlySender implements SmartLifecycle {
        private final ObjectProvider<RdmaTemplate> template;
        private final ObjectProvider<RdmaListenerEndpointRegistry> registry;
        private final ObjectProvider<Orders> orders;
        volatile boolean containerRunning = true;
        volatile int handledMeanwhile = -1;
        private volatile boolean running;

        EarlySender(ObjectProvider<RdmaTemplate> template, ObjectProvider<RdmaListenerEndpointRegistry> registry,
                    ObjectProvider<Orders> orders) {
            this.template = template;
            this.registry = registry;
            this.orders = orders;
        }

        @Override
        public void start() {
            running = true;
            try {
                template.getObject().send(SimulatedLoopback.CLIENT, "early".getBytes(StandardCharsets.UTF_8))
                        .get(WAIT_SECONDS, TimeUnit.SECONDS);
                Thread.sleep(QUIET_MILLIS);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            containerRunning = registry.getObject().listenerContainer("orders").isRunning();
            handledMeanwhile = orders.getObject().received.size();
        }

        @Override
        public void stop() {
            running = false;
        }

        @Override
        public boolean isRunning() {
            return running;
        }

        @Override
        public int getPhase() {
            return Integer.MAX_VALUE - 100;
        }
    }

    static class ThreadRecording {
        final List<Boolean> virtual = new CopyOnWriteArrayList<>();
        final CountDownLatch release = new CountDownLatch(1);

        @RdmaListener(queuePair = SimulatedLoopback.SERVER)
        void receive(byte[] payload) throws InterruptedException {
            virtual.add(Thread.currentThread().isVirtual());
            release.await();
        }
    }

    static class FirstBlocks {
        final List<Thread> threads = new CopyOnWriteArrayList<>();
        final CountDownLatch release = new CountDownLatch(1);

        @RdmaListener(queuePair = SimulatedLoopback.SERVER)
        void receive(byte[] payload) throws InterruptedException {
            threads.add(Thread.currentThread());
            if (threads.size() == 1) {
                assertThat(release.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
            }
        }
    }

    static class Blocking {
        final CountDownLatch started = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        volatile boolean finished;

        @RdmaListener(queuePair = SimulatedLoopback.SERVER)
        void receive(byte[] payload) throws InterruptedException {
            started.countDown();
            release.await();
            Thread.sleep(100); // the close must wait for this too: the invocation ends when the method returns
            finished = true;
        }
    }
}
