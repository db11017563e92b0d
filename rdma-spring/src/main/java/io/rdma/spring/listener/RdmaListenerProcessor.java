package io.rdma.spring.listener;

import io.rdma.spring.channel.ChannelFollower;
import io.rdma.spring.channel.RdmaChannel;
import io.rdma.spring.channel.RdmaChannels;
import io.rdma.spring.completion.CompletionPollers;
import io.rdma.spring.resource.ConnectionPlan;
import io.rdma.spring.resource.RdmaResources;
import io.rdma.spring.template.RdmaTemplate;
import io.rdma.verbs.api.QueuePair;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.Assert;
import org.springframework.util.ReflectionUtils;

/**
 * Finds {@link RdmaListener} methods on beans and has {@link ChannelReceivers} hand the messages
 * of each channel they listen on to them: the declared queue pair's channel, or, for a listener
 * with a queue pair prototype, the channel of every peer it accepts. Each method has one
 * {@link ListenerInvoker}, shared by the containers of all its queue pairs, which holds it to
 * its concurrency and hands its failures to its error handler. The resources are looked up lazily: a
 * post-processor is created before ordinary beans, {@code RdmaResources} among them.
 */
public final class RdmaListenerProcessor implements BeanPostProcessor, BeanFactoryAware, SmartLifecycle {

    private static final Log logger = LogFactory.getLog(RdmaListenerProcessor.class);

    private record Listener(String queuePair, String connectionListener, String serviceConnection, int concurrency,
                            boolean onPollerThread, String errorHandler, Object bean, Method method) {
    }

    private final ObjectProvider<RdmaResources> resources;
    private final ObjectProvider<RdmaChannels> channels;
    private final ObjectProvider<ChannelReceivers> receivers;
    private final ObjectProvider<RdmaTemplate> template;
    private final List<Listener> listeners = new ArrayList<>();
    private final List<ListenerInvoker> invokers = new ArrayList<>();
    private @Nullable BeanFactory beanFactory;
    private volatile boolean running;

    public RdmaListenerProcessor(ObjectProvider<RdmaResources> resources, ObjectProvider<RdmaChannels> channels,
                                 ObjectProvider<ChannelReceivers> receivers, ObjectProvider<RdmaTemplate> template) {
        this.resources = resources;
        this.channels = channels;
        this.receivers = receivers;
        this.template = template;
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    @Override
    public @Nullable Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
        Class<?> type = AopUtils.getTargetClass(bean);
        MethodIntrospector.selectMethods(type, (MethodIntrospector.MetadataLookup<RdmaListener>) method ->
                        AnnotatedElementUtils.findMergedAnnotation(method, RdmaListener.class))
                .forEach((method, annotation) -> listeners.add(new Listener(annotation.queuePair(),
                        annotation.connectionListener(), annotation.serviceConnection(), annotation.concurrency(),
                        annotation.onPollerThread(), annotation.errorHandler(), bean, method)));
        return bean;
    }

    @Override
    public void start() {
        RdmaResources rdma = resources.getObject();
        RdmaChannels declared = channels.getObject();
        for (Listener listener : listeners) {
            if (Stream.of(listener.queuePair(), listener.connectionListener(), listener.serviceConnection())
                    .filter(name -> !name.isEmpty()).count() != 1) {
                throw new IllegalStateException("@RdmaListener on " + listener.method() + " must name exactly one of"
                        + " queuePair, connectionListener and serviceConnection");
            }
            ListenerInvoker invoker = invoker(listener);
            if (!listener.connectionListener().isEmpty()) {
                ConnectionPlan.ListenerPlan plan = rdma.connections().listeners().stream()
                        .filter(candidate -> candidate.name().equals(listener.connectionListener())
                                && candidate.queuePairPrototype() != null)
                        .findFirst().orElseThrow(() -> new IllegalStateException("@RdmaListener on " + listener.method()
                                + " names connection listener '" + listener.connectionListener() + "', which is not"
                                + " declared under rdma.connections.listeners with a queue-pair-prototype"));
                declared.follow(plan.name(), peerReceiver(rdma, listener, invoker, plan.queuePairPrototype()));
                continue;
            }
            if (!listener.serviceConnection().isEmpty()) {
                ConnectionPlan.ServicePlan plan = rdma.connections().services().stream()
                        .filter(candidate -> candidate.name().equals(listener.serviceConnection()))
                        .findFirst().orElseThrow(() -> new IllegalStateException("@RdmaListener on " + listener.method()
                                + " names service connection '" + listener.serviceConnection() + "', which is not"
                                + " declared under rdma.connections.outbound with a service"));
                if (plan.queuePair() != null) {
                    // one instance at a time, on a declared queue pair: received on as that queue pair is
                    receiveOn(plan.queuePair(), rdma, declared, listener, invoker);
                } else {
                    declared.follow(plan.name(), peerReceiver(rdma, listener, invoker, plan.queuePairPrototype()));
                }
                continue;
            }
            receiveOn(listener.queuePair(), rdma, declared, listener, invoker);
        }
        running = true;
    }

    /** Hands the messages of declared queue pair {@code queuePair}'s channel to {@code invoker}. */
    private void receiveOn(String queuePair, RdmaResources rdma, RdmaChannels declared, Listener listener,
                           ListenerInvoker invoker) {
        if (rdma.resource(queuePair).filter(m -> m.resource() instanceof QueuePair).isEmpty()) {
            throw new IllegalStateException("@RdmaListener on " + listener.method() + " names queue pair '"
                    + queuePair + "', which is not declared under rdma.devices");
        }
        checkPool(rdma, listener, queuePair);
        receivers.getObject().listen(declared.channel(queuePair), invoker);
    }

    /**
     * For each peer a listener accepts, or each instance a service connection connects, its
     * channel's messages go to {@code invoker}; {@link ChannelReceivers} empties and forgets the
     * channel's receive queue when it goes.
     */
    private ChannelFollower peerReceiver(RdmaResources rdma, Listener listener, ListenerInvoker invoker,
                                         String prototype) {
        checkPool(rdma, listener, prototype);
        ChannelReceivers receiving = receivers.getObject();
        return new ChannelFollower() {
            @Override
            public void up(RdmaChannel peer) {
                receiving.listen(peer, invoker);
            }

            @Override
            public void down(RdmaChannel peer) {
            }
        };
    }

    private static void checkPool(RdmaResources rdma, Listener listener, String queuePair) {
        if (rdma.queuePairAddress(queuePair).memoryPool() == null) {
            throw new IllegalStateException("@RdmaListener on " + listener.method() + ": queue pair '" + queuePair
                    + "' has no memory pool to receive into; set its memory-pool property");
        }
    }

    /** The method's invoker, shared by every queue pair it listens on, so its concurrency holds across them. */
    private ListenerInvoker invoker(Listener listener) {
        if (listener.concurrency() < 0) {
            throw new IllegalStateException("@RdmaListener on " + listener.method() + " sets concurrency "
                    + listener.concurrency() + "; set 1 or more invocations at once, or 0 for no limit");
        }
        if (listener.onPollerThread() && listener.concurrency() != 0) {
            throw new IllegalStateException("@RdmaListener on " + listener.method() + " sets onPollerThread and"
                    + " concurrency " + listener.concurrency() + "; on the poller thread nothing is handed over, so"
                    + " there is nothing to limit: leave concurrency 0, or let workers run the method");
        }
        String description = "@RdmaListener method " + listener.method();
        ListenerInvoker invoker = new ListenerInvoker(description, method(listener),
                listener.method().getParameterTypes()[0] == ReceivedBuffer.class, listener.concurrency(),
                listener.onPollerThread(), errorHandler(listener, description), template.getObject(),
                "rdma-listener-" + listener.method().getDeclaringClass().getSimpleName() + "."
                        + listener.method().getName());
        invokers.add(invoker);
        return invoker;
    }

    /** The bean the listener names, or else one that logs at ERROR. */
    private RdmaListenerErrorHandler errorHandler(Listener listener, String description) {
        if (listener.errorHandler().isEmpty()) {
            return (message, failure) -> logger.error(description + " failed on a message of queue pair '"
                    + message.queuePair() + "'", failure);
        }
        Assert.state(beanFactory != null, "'beanFactory' must not be null");
        try {
            return beanFactory.getBean(listener.errorHandler(), RdmaListenerErrorHandler.class);
        } catch (BeansException e) {
            throw new IllegalStateException("@RdmaListener on " + listener.method() + " names error handler '"
                    + listener.errorHandler() + "', which is not a bean implementing RdmaListenerErrorHandler", e);
        }
    }

    /**
     * The method as a function of the delivery, through a method handle bound to the bean, which
     * unlike {@link Method#invoke} boxes no argument array per message.
     */
    private static Function<Delivery, byte @Nullable []> method(Listener listener) {
        Method method = listener.method();
        Class<?>[] parameters = method.getParameterTypes();
        if (parameters.length != 1 || (parameters[0] != byte[].class && parameters[0] != ReceivedMessage.class
                && parameters[0] != ReceivedBuffer.class)) {
            throw new IllegalStateException("@RdmaListener method " + method + " must take one byte[],"
                    + " ReceivedMessage or ReceivedBuffer parameter");
        }
        ReflectionUtils.makeAccessible(method);
        MethodHandle handle;
        try {
            handle = MethodHandles.lookup().unreflect(method).bindTo(listener.bean())
                    .asType(MethodType.methodType(Object.class, Object.class));
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("@RdmaListener method " + method + " cannot be called", e);
        }
        Class<?> parameter = parameters[0];
        boolean replies = method.getReturnType() == byte[].class;
        return delivery -> {
            Object argument = parameter == ReceivedBuffer.class ? delivery
                    : parameter == ReceivedMessage.class ? delivery.message() : delivery.message().payload();
            Object result;
            try {
                result = handle.invokeExact(argument);
            } catch (RuntimeException e) {
                throw e;
            } catch (Throwable e) {
                // as Method.invoke reports them: the invoker hands runtime exceptions to the error handler
                throw new IllegalStateException(e);
            }
            return replies ? (byte[]) result : null;
        };
    }

    @Override
    public void stop() {
        running = false;
        invokers.forEach(ListenerInvoker::stop);
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** After the connections: receives can only be posted to a QP past RESET. */
    @Override
    public int getPhase() {
        return CompletionPollers.PHASE + 2;
    }
}
