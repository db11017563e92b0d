package io.rdma.boot.autoconfigure.resource;

import io.rdma.boot.autoconfigure.BinaryDataSizeConverter;
import io.rdma.boot.autoconfigure.RdmaProperties;
import io.rdma.boot.autoconfigure.resource.DevicePlan.QueuePairPlan;
import io.rdma.spring.resource.DeclaredResource;
import io.rdma.spring.resource.RdmaCustomizer;
import io.rdma.spring.resource.RdmaResources;
import io.rdma.spring.resource.ResourceLookup;
import io.rdma.verbs.api.Verbs;
import io.rdma.verbs.api.VerbsException;
import io.rdma.verbs.api.VerbsResource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.PropertySourcesPlaceholdersResolver;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.Assert;
import org.springframework.util.function.SingletonSupplier;

/**
 * Registers one bean per declared resource, named after its key, plus {@code rdmaVerbs} (the
 * provider's device list, the root every device depends on) and {@code rdmaResources}.
 *
 * <p>Why bean definitions rather than one bean that creates everything and registers
 * singletons: a bean definition carries {@code dependsOn}, and Spring both creates the
 * dependencies first and destroys the dependents first, also when startup fails half-way
 * (the singletons created so far are destroyed in reverse). Hand-registered singletons get
 * neither, so the destroy order and the clean-up after a failed start would have to be
 * re-implemented. Definitions also make each resource an ordinary bean:
 * {@code @Qualifier("rpc") QueuePair} resolves by name, {@code @DependsOn("rpc")} works,
 * and a user bean that injects a QP is destroyed before it.
 *
 * <p>The properties are bound here with {@link Binder}, because bean definitions must exist
 * before any bean (the {@code @ConfigurationProperties} bean included) is created. Before they
 * are bound, every key under {@code rdma} is checked against what the properties classes bind
 * ({@link KnownRdmaKeys}): a misspelt key fails the start here rather than being ignored.
 */
public final class RdmaResourceRegistrar implements ImportBeanDefinitionRegistrar, EnvironmentAware, BeanFactoryAware,
        BeanClassLoaderAware {

    private static final Log logger = LogFactory.getLog(RdmaResourceRegistrar.class);

    private @Nullable Environment environment;
    private @Nullable BeanFactory beanFactory;
    private @Nullable ClassLoader beanClassLoader;

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    @Override
    public void setBeanClassLoader(ClassLoader classLoader) {
        this.beanClassLoader = classLoader;
    }

    @Override
    public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
        Assert.state(environment != null, "'environment' must not be null");
        Assert.state(beanFactory != null, "'beanFactory' must not be null");
        ApplicationConversionService conversion = new ApplicationConversionService();
        conversion.addConverter(new BinaryDataSizeConverter());
        Iterable<ConfigurationPropertySource> sources = ConfigurationPropertySources.get(environment);
        KnownRdmaKeys.check(sources, beanClassLoader);
        Binder binder = new Binder(sources, new PropertySourcesPlaceholdersResolver(environment), conversion);
        RdmaProperties properties = binder.bind(RdmaProperties.PREFIX, Bindable.of(RdmaProperties.class),
                new EnumValueBindHandler()).orElseGet(RdmaProperties::new);
        CheckedResourcePlan plan = CheckedResourcePlan.read(properties);
        plan.pinnedMemoryWarning().ifPresent(logger::warn);
        BeanFactoryLookup lookup = new BeanFactoryLookup(beanFactory);
        registry.registerBeanDefinition(CheckedResourcePlan.VERBS_BEAN, definition(Verbs.class, () -> {
            // before anything is opened: a customizer of a name nothing declares is a typo
            plan.checkCustomized(lookup.customizers());
            return openVerbs(plan);
        }));
        List<DeclaredResource> resources = plan.resources();
        for (DeclaredResource resource : resources) {
            RootBeanDefinition definition = definition(resource.type(), () -> create(resource, lookup));
            definition.setDependsOn(resource.dependsOn().toArray(String[]::new));
            registry.registerBeanDefinition(resource.name(), definition);
        }
        RootBeanDefinition all = new RootBeanDefinition(RdmaResources.class, () -> rdmaResources(resources, plan, lookup));
        all.setLazyInit(false);
        all.setDependsOn(resources.stream().map(DeclaredResource::name).toArray(String[]::new));
        registry.registerBeanDefinition(CheckedResourcePlan.RESOURCES_BEAN, all);
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
            List<String> declared = plan.devices().stream().map(DevicePlan::name).toList();
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
        Map<String, QueuePairPlan> prototypes = plan.queuePairPrototypes();
        return new RdmaResources(lookup.verbs(), managed, plan, prototype -> {
            QueuePairPlan qp = prototypes.get(prototype);
            if (qp == null) {
                throw new IllegalArgumentException("no queue pair prototype named '" + prototype + "' is declared;"
                        + " declared: " + prototypes.keySet());
            }
            return ResourceDeclarations.createQueuePair(qp, lookup);
        });
    }

    /**
     * Resources are created at startup whatever the lazy-initialization setting says: resources
     * that cannot be created should fail the start, not the first request. {@code close} is
     * their destroy method.
     */
    private static RootBeanDefinition definition(Class<?> type, Supplier<?> supplier) {
        RootBeanDefinition definition = new RootBeanDefinition(type);
        definition.setInstanceSupplier(supplier);
        definition.setLazyInit(false);
        definition.setDestroyMethodName("close");
        return definition;
    }

    private static final class BeanFactoryLookup implements ResourceLookup {

        private final BeanFactory beanFactory;
        /** The application's customizers, looked up once, when the first resource (the device list) is created. */
        private final SingletonSupplier<List<RdmaCustomizer<?>>> customizers;

        BeanFactoryLookup(BeanFactory beanFactory) {
            this.beanFactory = beanFactory;
            this.customizers = SingletonSupplier.of(() -> beanFactory.getBeanProvider(RdmaCustomizer.class)
                    .orderedStream().<RdmaCustomizer<?>>map(customizer -> customizer).toList());
        }

        @Override
        public Verbs verbs() {
            return beanFactory.getBean(CheckedResourcePlan.VERBS_BEAN, Verbs.class);
        }

        @Override
        public <T> T resource(String name, Class<T> type) {
            return beanFactory.getBean(name, type);
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

        List<RdmaCustomizer<?>> customizers() {
            return customizers.obtain();
        }
    }
}
