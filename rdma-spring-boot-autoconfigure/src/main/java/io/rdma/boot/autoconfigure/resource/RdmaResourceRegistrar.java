package io.rdma.boot.autoconfigure.resource;

import io.rdma.boot.autoconfigure.BinaryDataSizeConverter;
import io.rdma.boot.autoconfigure.RdmaProperties;
import io.rdma.boot.autoconfigure.resource.DevicePlan.QueuePairPlan;
import io.rdma.spring.resource.DeclaredResource;
import io.rdma.spring.resource.QueuePairFactory;
import io.rdma.spring.resource.RdmaCustomizer;
import io.rdma.spring.resource.RdmaResources;
import io.rdma.spring.resource.ResourceLookup;
import io.rdma.verbs.api.QueuePair;
import io.rdma.verbs.api.Verbs;
import io.rdma.verbs.api.VerbsException;
import io.rdma.verbs.api.VerbsResource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanRegistrar;
import org.springframework.beans.factory.BeanRegistry;
import org.springframework.boot.LazyInitializationExcludeFilter;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.PropertySourcesPlaceholdersResolver;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Registers one bean per declared resource, named after its key, plus {@code rdmaVerbs} (the
 * provider's device list, the root every device depends on) and {@code rdmaResources}.
 *
 * <p>Why bean definitions rather than one bean that creates everything and registers
 * singletons: Spring creates a bean's dependencies first and destroys its dependents first,
 * also when startup fails half-way (the singletons created so far are destroyed in reverse).
 * Hand-registered singletons get neither, so the destroy order and the clean-up after a failed
 * start would have to be re-implemented. Definitions also make each resource an ordinary bean:
 * {@code @Qualifier("rpc") QueuePair} resolves by name, {@code @DependsOn("rpc")} works, and a
 * user bean that injects a QP is destroyed before it.
 *
 * <p>A {@link BeanRegistrar}, because it is the programmatic registration that Spring AOT keeps:
 * the generated application runs the registrar again at startup, against the environment of
 * that run, instead of turning its instance suppliers into code (which AOT cannot do). So under
 * AOT too the resources are the ones the run's {@code rdma.*} properties declare, never a copy
 * of the build's. What AOT fixes at build time are the conditions around it, as for any
 * auto-configuration: {@code rdma.enabled} and the presence of Actuator, Micrometer or Spring
 * Cloud on the class path.
 *
 * <p>A registrar's bean specification has no {@code dependsOn}, so each bean's supplier obtains
 * the beans it depends on ({@link DeclaredResource#dependsOn()}) before it creates anything:
 * Spring records every bean obtained while a supplier runs as a dependency of the bean being
 * created ({@code AbstractAutowireCapableBeanFactory#getObjectForBeanInstance}), exactly as
 * {@code dependsOn} would, so the parents are created first and destroyed last. Nor does it have
 * a destroy method: every resource, and the device list, is {@link AutoCloseable}, and Spring
 * infers {@code close} as the destroy method of an {@code AutoCloseable} bean. Nor an eager flag:
 * {@link #EAGER} excludes the beans from Boot's lazy initialization instead, because resources
 * that cannot be created should fail the start, not the first request.
 *
 * <p>The properties are bound here with {@link Binder}, because bean definitions must exist
 * before any bean (the {@code @ConfigurationProperties} bean included) is created. Before they
 * are bound, every key under {@code rdma} is checked against what the properties classes bind
 * ({@link KnownRdmaKeys}): a misspelt key fails the start here rather than being ignored.
 */
public final class RdmaResourceRegistrar implements BeanRegistrar {

    private static final Log logger = LogFactory.getLog(RdmaResourceRegistrar.class);

    /** The name of the filter that keeps the beans registered here out of lazy initialization. */
    private static final String EAGER_BEAN = "rdmaLazyInitializationExcludeFilter";

    private static final LazyInitializationExcludeFilter EAGER =
            LazyInitializationExcludeFilter.forBeanTypes(Verbs.class, VerbsResource.class, RdmaResources.class);

    @Override
    public void register(BeanRegistry registry, Environment environment) {
        ApplicationConversionService conversion = new ApplicationConversionService();
        conversion.addConverter(new BinaryDataSizeConverter());
        Iterable<ConfigurationPropertySource> sources = ConfigurationPropertySources.get(environment);
        KnownRdmaKeys.check(sources, ClassUtils.getDefaultClassLoader());
        Binder binder = new Binder(sources, new PropertySourcesPlaceholdersResolver(environment), conversion);
        checkEnabled(binder);
        RdmaProperties properties = binder.bind(RdmaProperties.PREFIX, Bindable.of(RdmaProperties.class),
                new EnumValueBindHandler()).orElseGet(RdmaProperties::new);
        CheckedResourcePlan plan = CheckedResourcePlan.read(properties);
        plan.pinnedMemoryWarning().ifPresent(logger::warn);
        registry.registerBean(EAGER_BEAN, LazyInitializationExcludeFilter.class,
                spec -> spec.infrastructure().supplier(context -> EAGER));
        registry.registerBean(CheckedResourcePlan.VERBS_BEAN, Verbs.class, spec -> spec.supplier(context -> {
            // before anything is opened: a customizer of a name nothing declares is a typo
            plan.checkCustomized(new SupplierContextLookup(context).customizers());
            return openVerbs(plan);
        }));
        List<DeclaredResource> resources = plan.resources();
        for (DeclaredResource resource : resources) {
            registerResource(registry, resource);
        }
        registry.registerBean(CheckedResourcePlan.RESOURCES_BEAN, RdmaResources.class,
                spec -> spec.supplier(context -> rdmaResources(resources, plan, new SupplierContextLookup(context))));
    }

    @SuppressWarnings("unchecked") // the declared type is the class of what the creator returns
    private static <T extends VerbsResource> void registerResource(BeanRegistry registry, DeclaredResource resource) {
        registry.registerBean(resource.name(), (Class<T>) resource.type(), spec -> spec.supplier(context -> {
            resource.dependsOn().forEach(parent -> context.bean(parent, Object.class));
            return (T) create(resource, new SupplierContextLookup(context));
        }));
    }

    /**
     * The auto-configuration's condition has {@code rdma.enabled} true wherever the registrar runs,
     * except in an application compiled ahead of time, where the condition was decided at build
     * time and the registrar runs again at startup: there {@code rdma.enabled=false} would be
     * ignored, so it fails the start instead.
     */
    private static void checkEnabled(Binder binder) {
        String property = RdmaProperties.PREFIX + ".enabled";
        if (!binder.bind(property, Boolean.class).orElse(true)) {
            throw new InvalidRdmaConfigurationException(property, "it is false, but this application was compiled"
                    + " ahead of time with it true, and AOT fixes at build time whether an auto-configuration"
                    + " applies", "Run spring-boot:process-aot again with rdma.enabled=false, or start without"
                    + " -Dspring.aot.enabled=true.");
        }
    }

    private static Verbs openVerbs(CheckedResourcePlan plan) {
        try {
            Verbs verbs = Verbs.open(plan.provider(), plan.simulatedSettings());
            if (verbs.fellBackToSimulated()) {
                logger.warn("RDMA provider 'auto' fell back to the simulated fabric, in this JVM only: "
                        + verbs.selectionReason() + ". Set " + RdmaProperties.PREFIX + ".provider=native where an"
                        + " RDMA device must serve, so that a missing device or rdma-core fails the start instead.");
            } else {
                logger.info("RDMA provider '" + verbs.providerName() + "' serves this application: "
                        + verbs.selectionReason());
            }
            return verbs;
        } catch (VerbsException e) {
            List<String> declared = plan.devices().stream().map(DevicePlan::deviceName).toList();
            String problem = declared.isEmpty() ? e.getMessage() : e.getMessage() + "; so none of the declared devices "
                    + declared + " can be opened";
            throw new InvalidRdmaConfigurationException(RdmaProperties.PREFIX + ".provider", problem,
                    e.advice() != null ? e.advice() + "." : "Set rdma.provider to auto or simulated.", e);
        }
    }

    private static VerbsResource create(DeclaredResource resource, ResourceLookup lookup) {
        try {
            return resource.creator().create(lookup);
        } catch (VerbsException e) {
            throw new RdmaResourceCreationException(resource.name(), resource.kind(), resource.property(), e);
        }
    }

    private static RdmaResources rdmaResources(List<DeclaredResource> resources, CheckedResourcePlan plan, ResourceLookup lookup) {
        List<RdmaResources.ManagedResource> managed = new ArrayList<>();
        for (DeclaredResource resource : resources) {
            managed.add(new RdmaResources.ManagedResource(resource, lookup.resource(resource.name(), resource.type())));
        }
        Map<String, QueuePairPlan> creatable = plan.creatableQueuePairs();
        return new RdmaResources(lookup.verbs(), managed, plan, new QueuePairFactory() {
            @Override
            public QueuePair create(String name) {
                QueuePairPlan qp = creatable.get(name);
                if (qp == null) {
                    throw new IllegalArgumentException("no queue pair prototype or declared queue pair without flows"
                            + " named '" + name + "'; declared: " + creatable.keySet());
                }
                return ResourceDeclarations.createQueuePair(qp, lookup);
            }

            @Override
            public boolean creates(String name) {
                return creatable.containsKey(name);
            }
        });
    }

    /** The beans a resource is created from, as the supplier creating it obtains them. */
    private record SupplierContextLookup(BeanRegistry.SupplierContext context) implements ResourceLookup {

        @Override
        public Verbs verbs() {
            return context.bean(CheckedResourcePlan.VERBS_BEAN, Verbs.class);
        }

        @Override
        public <T> T resource(String name, Class<T> type) {
            return context.bean(name, type);
        }

        @Override
        @SuppressWarnings("unchecked") // the options type was compared first
        public <T> @Nullable T customize(String name, Class<T> optionsType, T options) {
            T customized = options;
            for (RdmaCustomizer<?> customizer : customizers()) {
                if (customizer.optionsType() == optionsType && customizer.name().equals(name) && customized != null) {
                    customized = ((RdmaCustomizer<T>) customizer).customize(customized);
                }
            }
            return customized;
        }

        /** The application's customizers, in bean order. */
        List<RdmaCustomizer<?>> customizers() {
            return context.beanProvider(RdmaCustomizer.class).orderedStream()
                    .<RdmaCustomizer<?>>map(customizer -> customizer).toList();
        }
    }
}
