package io.rdma.boot.autoconfigure.listener;

import io.rdma.boot.autoconfigure.completion.CompletionPollers;
import io.rdma.boot.autoconfigure.completion.CompletionRouter;
import io.rdma.boot.autoconfigure.connection.InJvmConnectionManager;
import io.rdma.boot.autoconfigure.fabric.RdmaFabric;
import io.rdma.boot.autoconfigure.template.RdmaTemplate;
import io.rdma.verbs.api.MemoryPool;
import io.rdma.verbs.api.QueuePair;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Finds {@link RdmaListener} methods on beans and, once the connections are up, fills each
 * listened queue pair's receive queue ({@link ReceiveContainer}). The fabric is looked up
 * lazily: a post-processor is created before ordinary beans, the fabric among them.
 */
public final class RdmaListenerProcessor implements BeanPostProcessor, SmartLifecycle {

    private record Listener(String queuePair, Object bean, Method method) {
    }

    private final ObjectProvider<RdmaFabric> fabric;
    private final ObjectProvider<CompletionRouter> router;
    private final ObjectProvider<RdmaTemplate> template;
    private final List<Listener> listeners = new ArrayList<>();
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private volatile boolean running;

    public RdmaListenerProcessor(ObjectProvider<RdmaFabric> fabric, ObjectProvider<CompletionRouter> router,
                                 ObjectProvider<RdmaTemplate> template) {
        this.fabric = fabric;
        this.router = router;
        this.template = template;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
        Class<?> type = AopUtils.getTargetClass(bean);
        MethodIntrospector.selectMethods(type, (MethodIntrospector.MetadataLookup<RdmaListener>) method ->
                        AnnotatedElementUtils.findMergedAnnotation(method, RdmaListener.class))
                .forEach((method, annotation) -> listeners.add(new Listener(annotation.queuePair(), bean, method)));
        return bean;
    }

    @Override
    public void start() {
        RdmaFabric rdma = fabric.getObject();
        for (Listener listener : listeners) {
            QueuePair qp = rdma.resource(listener.queuePair()).filter(m -> m.resource() instanceof QueuePair)
                    .map(m -> (QueuePair) m.resource()).orElseThrow(() -> new IllegalStateException(
                            "@RdmaListener on " + listener.method() + " names queue pair '" + listener.queuePair()
                                    + "', which is not declared under rdma.devices"));
            String pool = rdma.queuePairAddress(listener.queuePair()).memoryPool();
            if (pool == null) {
                throw new IllegalStateException("@RdmaListener on " + listener.method() + ": queue pair '"
                        + listener.queuePair() + "' has no memory pool to receive into; set its memory-pool property");
            }
            new ReceiveContainer(listener.queuePair(), qp, (MemoryPool) rdma.resource(pool).orElseThrow().resource(),
                    invoker(listener), template.getObject(), executor, router.getObject(),
                    InJvmConnectionManager.shared()).start();
        }
        running = true;
    }

    private static Function<ReceivedMessage, byte[]> invoker(Listener listener) {
        Method method = listener.method();
        ReflectionUtils.makeAccessible(method);
        Class<?>[] parameters = method.getParameterTypes();
        if (parameters.length != 1 || (parameters[0] != byte[].class && parameters[0] != ReceivedMessage.class)) {
            throw new IllegalStateException("@RdmaListener method " + method + " must take one byte[] or"
                    + " ReceivedMessage parameter");
        }
        boolean wantsMessage = parameters[0] == ReceivedMessage.class;
        boolean replies = method.getReturnType() == byte[].class;
        return message -> {
            try {
                Object result = method.invoke(listener.bean(), wantsMessage ? message : message.payload());
                return replies ? (byte[]) result : null;
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            } catch (InvocationTargetException e) {
                throw e.getCause() instanceof RuntimeException runtime ? runtime : new IllegalStateException(e.getCause());
            }
        };
    }

    @Override
    public void stop() {
        running = false;
        executor.shutdown();
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
