package io.rdma.spring.listener;

import io.rdma.spring.channel.ChannelFollower;
import io.rdma.spring.channel.RdmaChannel;
import io.rdma.spring.channel.RdmaChannels;
import io.rdma.spring.completion.CompletionPollers;
import io.rdma.spring.convert.RdmaMessageConversion;
import io.rdma.spring.naming.UnknownRdmaNameException;
import io.rdma.spring.resource.ConnectionPlan.ListenerPlan;
import io.rdma.spring.resource.ConnectionPlan.ServicePlan;
import io.rdma.spring.resource.RdmaResources;
import io.rdma.spring.template.RdmaTemplate;
import io.rdma.spring.template.RdmaWireFormat;
import io.rdma.verbs.api.QueuePair;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.Assert;
import org.springframework.util.ReflectionUtils;

/**
 * Finds {@link RdmaListener} methods on beans and, before the connections start, makes each an
 * {@link RdmaListenerContainer} in the {@link RdmaListenerEndpointRegistry}: every name the
 * annotation gives is checked (a wrong one fails the start with an
 * {@link UnknownRdmaNameException} naming the method, the nearest name and all declared), and
 * {@link ChannelReceivers} hands the messages of each channel it listens on to it: the declared
 * queue pair's channel, or the channel of every peer a listener with a queue pair prototype
 * accepts, or of every instance a service connection connects. Receive queues fill as each channel
 * connects (before its handshake) or is up;
 * the containers start invoking once the context has refreshed. At stop (the context closes, the
 * containers have drained) every container gives back what still waits. The resources are looked
 * up lazily: a post-processor is created before ordinary beans, {@code RdmaResources} among them.
 */
public final class RdmaListenerProcessor implements BeanPostProcessor, BeanFactoryAware, SmartLifecycle {

    private record Listener(RdmaListener annotation, Object bean, Method method) {

        /** The method as a developer finds it: {@code com.example.Greeter.greet(String)}. */
        String site() {
            return method.getDeclaringClass().getName() + "." + method.getName() + Arrays.stream(
                    method.getParameterTypes()).map(Class::getSimpleName).collect(Collectors.joining(", ", "(", ")"));
        }

        String site(String attribute) {
            return "@RdmaListener(" + attribute + ") on " + site();
        }
    }

    private final ObjectProvider<RdmaResources> resources;
    private final ObjectProvider<RdmaChannels> channels;
    private final ObjectProvider<ChannelReceivers> receivers;
    private final ObjectProvider<RdmaTemplate> template;
    private final ObjectProvider<RdmaMessageConversion> conversion;
    private final ObjectProvider<RdmaListenerEndpointRegistry> registry;
    private final List<Listener> listeners = new ArrayList<>();
    private @Nullable BeanFactory beanFactory;
    private volatile boolean running;

    public RdmaListenerProcessor(ObjectProvider<RdmaResources> resources, ObjectProvider<RdmaChannels> channels,
                                 ObjectProvider<ChannelReceivers> receivers, ObjectProvider<RdmaTemplate> template,
                                 ObjectProvider<RdmaMessageConversion> conversion,
                                 ObjectProvider<RdmaListenerEndpointRegistry> registry) {
        this.resources = resources;
        this.channels = channels;
        this.receivers = receivers;
        this.template = template;
        this.conversion = conversion;
        this.registry = registry;
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
                .forEach((method, annotation) -> listeners.add(new Listener(annotation, bean, method)));
        return bean;
    }

    @Override
    public void start() {
        RdmaResources rdma = resources.getObject();
        RdmaChannels declared = channels.getObject();
        RdmaListenerEndpointRegistry containers = registry.getObject();
        for (Listener listener : listeners) {
            RdmaListener annotation = listener.annotation();
            if (Stream.of(annotation.queuePair(), annotation.connectionListener(), annotation.serviceConnection())
                    .filter(name -> !name.isEmpty()).count() != 1) {
                throw new IllegalStateException("@RdmaListener on " + listener.site() + " must name exactly one of"
                        + " queuePair, connectionListener and serviceConnection");
            }
            ListenerInvoker invoker = invoker(listener);
            String listensTo;
            if (!annotation.connectionListener().isEmpty()) {
                ListenerPlan plan = connectionListener(rdma, listener);
                // connectionListener finds only listeners with a prototype
                String prototype = Objects.requireNonNull(plan.queuePairPrototype());
                declared.follow(plan.name(), channelReceiver(rdma, listener, invoker, prototype));
                listensTo = "connection listener '" + plan.name() + "'";
            } else if (!annotation.serviceConnection().isEmpty()) {
                ServicePlan plan = serviceConnection(rdma, listener);
                String queuePair = plan.queuePair();
                if (queuePair != null) {
                    // one instance at a time, on a declared queue pair: received on as that queue pair is
                    receiveOn(queuePair, rdma, declared, listener, invoker);
                } else {
                    // the plan sets exactly one of queuePair and queuePairPrototype
                    String prototype = Objects.requireNonNull(plan.queuePairPrototype());
                    declared.follow(plan.name(), channelReceiver(rdma, listener, invoker, prototype));
                }
                listensTo = "service connection '" + plan.name() + "'";
            } else {
                receiveOn(annotation.queuePair(), rdma, declared, listener, invoker);
                listensTo = "queue pair '" + annotation.queuePair() + "'";
            }
            String id = annotation.id().isEmpty() ? listener.method().getDeclaringClass().getName() + "."
                    + listener.method().getName() : annotation.id();
            containers.register(new RdmaListenerContainer(id, "@RdmaListener method " + listener.site(),
                    List.of(listensTo), annotation.autoStartup(), invoker));
        }
        running = true;
    }

    private static ListenerPlan connectionListener(RdmaResources rdma, Listener listener) {
        List<ListenerPlan> prototypes = rdma.connections().listeners().stream()
                .filter(candidate -> candidate.queuePairPrototype() != null).toList();
        String name = listener.annotation().connectionListener();
        return prototypes.stream().filter(candidate -> candidate.name().equals(name)).findFirst()
                .orElseThrow(() -> new UnknownRdmaNameException("connection listener", name,
                        listener.site("connectionListener"), prototypes.stream().map(ListenerPlan::name).toList(),
                        "rdma.connections.listeners (with a queue-pair-prototype)"));
    }

    private static ServicePlan serviceConnection(RdmaResources rdma, Listener listener) {
        List<ServicePlan> services = rdma.connections().services();
        String name = listener.annotation().serviceConnection();
        return services.stream().filter(candidate -> candidate.name().equals(name)).findFirst()
                .orElseThrow(() -> new UnknownRdmaNameException("service connection", name,
                        listener.site("serviceConnection"), services.stream().map(ServicePlan::name).toList(),
                        "rdma.connections.outbound (with service)"));
    }

    /**
     * Hands the messages of declared queue pair {@code queuePair}'s channel to {@code invoker}, and
     * those of its successors, when a reconnection makes the queue pair anew.
     */
    private void receiveOn(String queuePair, RdmaResources rdma, RdmaChannels declared, Listener listener,
                           ListenerInvoker invoker) {
        if (rdma.resource(queuePair).filter(m -> m.resource() instanceof QueuePair).isEmpty()) {
            throw new UnknownRdmaNameException("queue pair", queuePair, listener.site("queuePair"),
                    rdma.resources(QueuePair.class).stream().map(RdmaResources.Named::name).toList(),
                    "rdma.devices.<device>.protection-domains.<pd>.queue-pairs");
        }
        declared.follow(queuePair, channelReceiver(rdma, listener, invoker, queuePair));
    }

    /**
     * For each channel of a source (a declared queue pair, and what it is made anew as; the peers a
     * listener accepts; the instances a service connection connects), its messages go to
     * {@code invoker} from the moment it is connecting or up; {@link ChannelReceivers} empties and
     * forgets the channel's receive queue when it goes. {@code declaration}: the queue pair or
     * prototype whose pool the channels receive into.
     */
    private ChannelFollower channelReceiver(RdmaResources rdma, Listener listener, ListenerInvoker invoker,
                                            String declaration) {
        checkPool(rdma, listener, declaration);
        ChannelReceivers receiving = receivers.getObject();
        return new ChannelFollower() {
            @Override
            public void connecting(RdmaChannel channel) {
                receiving.listen(channel, invoker); // receives posted before the handshake, for the peer's first messages
            }

            @Override
            public void up(RdmaChannel channel) {
                receiving.listen(channel, invoker);
            }

            @Override
            public void down(RdmaChannel channel) {
            }
        };
    }

    private static void checkPool(RdmaResources rdma, Listener listener, String queuePair) {
        if (rdma.queuePairAddress(queuePair).memoryPool() == null) {
            throw new IllegalStateException("@RdmaListener on " + listener.site() + ": queue pair '" + queuePair
                    + "' has no memory pool to receive into; set its memory-pool property");
        }
    }

    /** The method's invoker, shared by every channel it listens on, so its concurrency holds across them. */
    private ListenerInvoker invoker(Listener listener) {
        RdmaListener annotation = listener.annotation();
        if (annotation.concurrency() < 0) {
            throw new IllegalStateException("@RdmaListener on " + listener.site() + " sets concurrency "
                    + annotation.concurrency() + "; set 1 or more invocations at once, or 0 for no limit");
        }
        if (annotation.onPollerThread() && annotation.concurrency() != 0) {
            throw new IllegalStateException("@RdmaListener on " + listener.site() + " sets onPollerThread and"
                    + " concurrency " + annotation.concurrency() + "; on the poller thread nothing is handed over,"
                    + " so there is nothing to limit: leave concurrency 0, or let workers run the method");
        }
        String description = "@RdmaListener method " + listener.site();
        Method method = listener.method();
        boolean typed = TypedListenerMethod.needsConversion(method);
        return new ListenerInvoker(description, typed ? typed(listener) : direct(listener),
                !typed && method.getParameterTypes()[0] == ReceivedBuffer.class, annotation.concurrency(),
                annotation.onPollerThread(), errorHandler(listener, description), template.getObject(),
                "rdma-listener-" + method.getDeclaringClass().getSimpleName() + "." + method.getName());
    }

    /** The bean the listener names, or else one that logs at ERROR. */
    private RdmaListenerErrorHandler errorHandler(Listener listener, String description) {
        String name = listener.annotation().errorHandler();
        if (name.isEmpty()) {
            return new LoggingErrorHandler(description);
        }
        Assert.state(beanFactory != null, "'beanFactory' must not be null");
        if (!beanFactory.containsBean(name) || !beanFactory.isTypeMatch(name, RdmaListenerErrorHandler.class)) {
            List<String> handlers = beanFactory instanceof ListableBeanFactory listable
                    ? List.of(listable.getBeanNamesForType(RdmaListenerErrorHandler.class)) : List.of();
            throw new UnknownRdmaNameException("error handler bean", name, listener.site("errorHandler"), handlers,
                    "the application context, as beans implementing RdmaListenerErrorHandler");
        }
        return beanFactory.getBean(name, RdmaListenerErrorHandler.class);
    }

    /**
     * A method with typed parameters or reply: through {@link TypedListenerMethod} and the
     * conversion. A request's immediate data is its correlation id, not the application's.
     */
    private Function<Delivery, byte @Nullable []> typed(Listener listener) {
        TypedListenerMethod typed = new TypedListenerMethod(listener.bean(), listener.method(),
                conversion.getIfUnique(RdmaMessageConversion::new));
        return delivery -> {
            boolean request = delivery.hasImmediateData()
                    && RdmaWireFormat.kind(delivery.immediateData()) == RdmaWireFormat.REQUEST;
            return typed.invoke(delivery.queuePair(), delivery.bytes(), delivery.hasImmediateData() && !request,
                    delivery.immediateData(), request ? RdmaWireFormat.correlationId(delivery.immediateData()) : null);
        };
    }

    /**
     * A method that takes one {@code byte[]}, {@link ReceivedMessage} or {@link ReceivedBuffer} and
     * returns {@code byte[]} or nothing, through a method handle bound to the bean, which unlike
     * {@link Method#invoke} boxes no argument array per message.
     */
    private static Function<Delivery, byte @Nullable []> direct(Listener listener) {
        Method method = listener.method();
        ReflectionUtils.makeAccessible(method);
        MethodHandle handle;
        try {
            handle = MethodHandles.lookup().unreflect(method).bindTo(listener.bean())
                    .asType(MethodType.methodType(Object.class, Object.class));
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("@RdmaListener method " + listener.site() + " cannot be called", e);
        }
        Class<?> parameter = method.getParameterTypes()[0];
        boolean replies = method.getReturnType() == byte[].class;
        return delivery -> {
            Object argument = parameter == ReceivedBuffer.class ? delivery
                    : parameter == ReceivedMessage.class ? delivery.message() : delivery.bytes();
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

    /** The containers stopped (drained) when the context began closing: what still waits goes back. */
    @Override
    public void stop() {
        running = false;
        registry.getObject().closeContainers();
    }

    /**
     * Not stopped when the context pauses: stopping closes the containers for good, where a pause
     * only stops them (their registry is pauseable) over a fabric that stays
     * ({@link CompletionPollers#isPauseable}).
     */
    @Override
    public boolean isPauseable() {
        return false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /**
     * Before the connections: a channel's receives are posted while its connection is being made
     * ({@link io.rdma.spring.channel.ChannelFollower#connecting}), its queue pair in INIT, so the
     * listeners must follow the channels by then. A peer's first message that found no receive
     * would be held back by RNR retries on InfiniBand and RoCE (while the sender's retry count
     * allows) and end the connection on iWARP, which has none.
     */
    @Override
    public int getPhase() {
        return CompletionPollers.PHASE + 1;
    }
}
