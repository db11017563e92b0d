package io.rdma.boot.autoconfigure;

import io.rdma.verbs.api.CompletionCounter;
import io.rdma.verbs.api.Errno;
import io.rdma.verbs.api.FabricControl;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.Verbs;
import io.rdma.verbs.api.VerbsResource;

import java.util.ArrayList;
import java.util.List;

import org.springframework.beans.factory.config.DestructionAwareBeanPostProcessor;

/**
 * Records, for every RDMA bean, when it was created and when Spring destroyed it, and what was
 * still open that depends on it at that moment. Because closing a resource closes its open
 * dependents first, a resource destroyed with nothing depending on it still open was destroyed
 * by its own bean, in this order, at the verbs level too.
 *
 * <p>Optionally makes {@code ibv_create_qp} fail with ENOMEM once a number of QPs exist.
 */
public final class ResourceLifecycleRecorder implements DestructionAwareBeanPostProcessor {

    /** One destruction: the bean, its kind, and what still depended on it when its destroy began. */
    public record Destruction(String name, ResourceKind kind, List<VerbsResource> openDependents) {
    }

    private final List<String> created = new ArrayList<>();
    private final List<Destruction> destroyed = new ArrayList<>();
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
            if (resource instanceof QueuePair qp && ++queuePairsCreated == failQueuePairAfter) {
                FabricControl control = verbs.control().orElseThrow();
                control.failNextVerb(qp.context().deviceName(), "ibv_create_qp", Errno.ENOMEM);
            }
        }
        return bean;
    }

    @Override
    public void postProcessBeforeDestruction(Object bean, String beanName) {
        if (bean instanceof VerbsResource resource) {
            List<VerbsResource> open = new ArrayList<>(resource.dependents());
            if (resource instanceof CompletionCounter counter) {
                open.addAll(counter.attachedQueuePairs());
            }
            destroyed.add(new Destruction(beanName, resource.kind(), open));
        }
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
