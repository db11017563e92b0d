package io.rdma.boot.autoconfigure;

import io.rdma.verbs.api.CompletionCounter;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.Verbs;
import io.rdma.verbs.api.VerbsResource;
import io.rdma.verbs.provider.simulated.FabricControl;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.springframework.beans.factory.config.DestructionAwareBeanPostProcessor;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.support.GenericApplicationContext;

/**
 * Records, for every RDMA bean, when it was created and when Spring destroyed it, and what was
 * still open that depends on it at that moment. Because closing a resource closes its open
 * dependents first, a resource destroyed with nothing depending on it still open was destroyed
 * by its own bean, in this order, at the verbs level too.
 *
 * <p>Connections and listeners are no beans: they belong to the declared connections, which
 * close them when they stop. So the recorder notes, before anything stops, which of them are
 * open under the beans, and when the first bean is destroyed records those that are closed by
 * then, by kind ({@link ResourceKind#CONNECTION_LISTENER}, then {@link ResourceKind#CONNECTION}),
 * ahead of the beans; one still open is left out, so that a count shows it.
 *
 * <p>Optionally makes {@code ibv_create_qp} fail with ENOMEM once a number of QPs exist.
 */
public final class ResourceLifecycleRecorder implements DestructionAwareBeanPostProcessor, SmartLifecycle {

    private static final Set<ResourceKind> CONNECTION_MANAGER_KINDS = EnumSet.of(ResourceKind.CONNECTION_LISTENER,
            ResourceKind.CONNECTION);

    /** One destruction: the bean, its kind, and what still depended on it when its destroy began. */
    public record Destruction(String name, ResourceKind kind, List<VerbsResource> openDependents) {
    }

    private final List<String> created = new ArrayList<>();
    private final List<Destruction> destroyed = new ArrayList<>();
    private final List<VerbsResource> beans = new ArrayList<>();
    private final Set<VerbsResource> connectionManagerObjects = new LinkedHashSet<>();
    private boolean running;
    private int failQueuePairAfter = -1;
    private int queuePairsCreated;
    private Verbs verbs;

    /** Makes the QP created after the first {@code count} fail with ENOMEM, as an exhausted device would. */
    public ResourceLifecycleRecorder failQueuePairAfter(int count) {
        failQueuePairAfter = count;
        return this;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof Verbs created) {
            verbs = created;
        }
        if (bean instanceof VerbsResource resource) {
            created.add(beanName);
            beans.add(resource);
            if (resource instanceof QueuePair qp && ++queuePairsCreated == failQueuePairAfter) {
                FabricControl control = verbs.extension(FabricControl.class).orElseThrow();
                control.failNextVerb(qp.context().deviceName(), "ibv_create_qp", Errno.ENOMEM);
            }
        }
        return bean;
    }

    @Override
    public void postProcessBeforeDestruction(Object bean, String beanName) {
        if (bean instanceof VerbsResource resource) {
            recordConnectionManagerObjects();
            List<VerbsResource> open = new ArrayList<>(resource.dependents());
            if (resource instanceof CompletionCounter counter) {
                open.addAll(counter.attachedQueuePairs());
            }
            destroyed.add(new Destruction(beanName, resource.kind(), open));
        }
    }

    /** Before the declared connections stop: what the connection manager holds open under the beans. */
    @Override
    public void stop() {
        running = false;
        beans.forEach(this::collectConnectionManagerObjects);
    }

    private void collectConnectionManagerObjects(VerbsResource resource) {
        for (VerbsResource dependent : resource.dependents()) {
            if (CONNECTION_MANAGER_KINDS.contains(dependent.kind())) {
                connectionManagerObjects.add(dependent);
            }
            collectConnectionManagerObjects(dependent);
        }
    }

    private void recordConnectionManagerObjects() {
        connectionManagerObjects.stream().filter(VerbsResource::isClosed)
                .sorted(Comparator.comparingInt(object -> object.kind().destroyRank()))
                .forEach(object -> destroyed.add(new Destruction(object.toString(), object.kind(),
                        object.dependents())));
        connectionManagerObjects.clear();
    }

    @Override
    public void start() {
        running = true;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Stopped first, so it sees every connection and listener still open. */
    @Override
    public int getPhase() {
        return Integer.MAX_VALUE;
    }

    /**
     * Makes this recorder a bean of {@code context}, before it starts: a singleton rather than a
     * definition, so that it works in a context compiled ahead of time too.
     */
    public void registerIn(GenericApplicationContext context) {
        context.getBeanFactory().registerSingleton("resourceLifecycleRecorder", this);
    }

    public Verbs verbs() {
        return verbs;
    }

    public List<String> created() {
        return created;
    }

    public List<Destruction> destroyed() {
        return destroyed;
    }

    public List<String> destroyedNames() {
        return destroyed.stream().map(Destruction::name).toList();
    }
}
