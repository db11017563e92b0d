package io.rdma.boot.autoconfigure;

import io.rdma.verbs.api.DeviceAttributes;
import io.rdma.verbs.api.DeviceContext;
import io.rdma.verbs.api.TransportType;
import io.rdma.verbs.api.ProviderKind;
import io.rdma.verbs.api.ResourceKind;
import io.rdma.verbs.api.Verbs;
import io.rdma.verbs.provider.simulated.DeviceSpec;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ClassPathResource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Context runners for the RDMA auto-configuration on the provider and device the run selects,
 * with resources declared in YAML as users write them, so one test runs on the simulated fabric
 * on any machine and on a real device (Soft-RoCE's {@code rxe0} in CI).
 *
 * <p>Selected by system properties, as rdma-verbs' loopback suite is: {@code rdma.provider}
 * ({@code simulated} by default, or {@code native}), {@code rdma-test.device} (the device under test;
 * required on native, {@value #DECLARED_DEVICE} on the simulated fabric) and {@code rdma-test.gid-index}
 * (for queue pairs a test connects by hand; 0 by default, 1 on Soft-RoCE, where RoCE v2 GIDs start).
 */
public final class RdmaContextRunners {

    /** The name the declarations in {@code src/test/resources/declarations} give the device under test. */
    public static final String DECLARED_DEVICE = "sim0";

    private static final String LOOPBACK = "127.0.0.1";

    public static final ProviderKind PROVIDER = ProviderKind.valueOf(
            System.getProperty("rdma.provider", "simulated").toUpperCase(Locale.ROOT));

    /** The device under test: declarations loaded by {@link #runner(String)} declare their resources on it. */
    public static final String DEVICE = deviceUnderTest();

    /** {@code rdma.devices.<DEVICE>}, the prefix of every property of the device under test. */
    public static final String DEVICE_PROPERTY = "rdma.devices." + DEVICE;

    /** GID index for queue pairs a test connects by hand (connection managers pick their own). */
    public static final int GID_INDEX = Integer.getInteger("rdma-test.gid-index", 0);

    /**
     * Where the declarations' outbound connections go ({@code ${rdma-test.peer-address}} in their YAML):
     * 127.0.0.1 on the simulated fabric; on a native device {@code rdma-test.peer-address}, or else
     * the IPv4 address of its port 1 GID at {@link #GID_INDEX}, because rdma_cm does not route the
     * loopback address to a RoCE device ({@code rdma_resolve_route} fails with ENODEV on Soft-RoCE).
     */
    public static final String PEER_ADDRESS = PROVIDER == ProviderKind.SIMULATED ? LOOPBACK : deviceAddress();

    /** {@code rdma.provider=<the selected provider>}, for an application a test starts itself. */
    public static final String PROVIDER_PROPERTY = "rdma.provider=" + PROVIDER.name().toLowerCase(Locale.ROOT);

    private RdmaContextRunners() {
    }

    private static String deviceUnderTest() {
        String device = System.getProperty("rdma-test.device");
        if (device == null && PROVIDER != ProviderKind.SIMULATED) {
            throw new IllegalStateException("-Drdma-test.device must name the device under test on the "
                    + PROVIDER + " provider (e.g. -Drdma-test.device=rxe0)");
        }
        return device == null ? DECLARED_DEVICE : device;
    }

    /** {@code rdma-test.peer-address} where given, else the IPv4 address of the GID under test. */
    private static String deviceAddress() {
        String given = System.getProperty("rdma-test.peer-address");
        if (given != null) {
            return given;
        }
        try (Verbs verbs = Verbs.open(PROVIDER); DeviceContext device = verbs.device(DEVICE).open()) {
            return device.queryGid(1, GID_INDEX).ipv4Address().orElseThrow(() -> new IllegalStateException("GID "
                    + GID_INDEX + " of " + DEVICE + " port 1 holds no IPv4 address (an iWARP device's one GID is"
                    + " made from its MAC address): give the device's address as -Drdma-test.peer-address"));
        }
    }

    /** A runner on the selected provider, with nothing declared. */
    public static ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RdmaAutoConfiguration.class))
                .withPropertyValues(PROVIDER_PROPERTY);
    }

    /**
     * A runner on the selected provider whose environment holds {@code declarations/<name>.yml}, its
     * device renamed to {@link #DEVICE} and its peers at {@link #PEER_ADDRESS}, below the runner's
     * own property values.
     */
    public static ApplicationContextRunner runner(String declaration) {
        return withDeclaration(runner(), declaration, DEVICE, PEER_ADDRESS);
    }

    /**
     * A runner on the simulated fabric whatever the run selects, for the tests that inject
     * faults or describe a device ({@code rdma.simulated.devices}); they are tagged
     * {@link SimulatedOnly}.
     */
    public static ApplicationContextRunner simulatedRunner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RdmaAutoConfiguration.class))
                .withPropertyValues("rdma.provider=simulated");
    }

    /** {@link #simulatedRunner()} with {@code declarations/<name>.yml}, its device keeping the name {@value #DECLARED_DEVICE}. */
    public static ApplicationContextRunner simulatedRunner(String declaration) {
        return withDeclaration(simulatedRunner(), declaration, DECLARED_DEVICE, LOOPBACK);
    }

    private static ApplicationContextRunner withDeclaration(ApplicationContextRunner runner, String declaration, String device,
                                                            String peerAddress) {
        return runner.withPropertyValues("rdma-test.peer-address=" + peerAddress)
                .withInitializer(declaration(declaration, device));
    }

    /**
     * For an application a test starts itself (a web server, say), as {@link #runner(String)}
     * prepares a runner: {@code declarations/<name>.yml} in its environment, its device renamed
     * to {@link #DEVICE} and its peers at {@link #PEER_ADDRESS}.
     */
    public static ApplicationContextInitializer<ConfigurableApplicationContext> declaration(String declaration) {
        ApplicationContextInitializer<ConfigurableApplicationContext> declared = declaration(declaration, DEVICE);
        return context -> {
            declared.initialize(context);
            context.getEnvironment().getPropertySources().addLast(new MapPropertySource("rdma-test",
                    Map.of("rdma-test.peer-address", PEER_ADDRESS)));
        };
    }

    private static ApplicationContextInitializer<ConfigurableApplicationContext> declaration(String declaration,
                                                                                            String device) {
        return context -> {
            try {
                List<PropertySource<?>> sources = new YamlPropertySourceLoader()
                        .load(declaration, new ClassPathResource("declarations/" + declaration + ".yml"));
                sources.forEach(source -> context.getEnvironment().getPropertySources()
                        .addLast(onDevice((EnumerablePropertySource<?>) source, device)));
            } catch (IOException e) {
                throw new IllegalStateException("cannot read declaration " + declaration, e);
            }
        };
    }

    /** {@code source} with every {@code ...devices.sim0...} key renamed to {@code device}. */
    private static MapPropertySource onDevice(EnumerablePropertySource<?> source, String device) {
        String declared = ".devices." + DECLARED_DEVICE + ".";
        Map<String, Object> properties = new LinkedHashMap<>();
        for (String key : source.getPropertyNames()) {
            properties.put(key.replace(declared, ".devices." + device + "."), source.getProperty(key));
        }
        return new MapPropertySource(source.getName(), properties);
    }

    /**
     * Skips the test, with {@code reason}, unless the device under test reports {@code capability}
     * (as {@code ibv_query_device} and its extensions do), so that only what a device lacks is
     * skipped and everything else fails.
     */
    public static void assumeDevice(Predicate<DeviceAttributes> capability, String reason) {
        assumeTrue(onDeviceUnderTest(device -> capability.test(device.queryDevice())),
                reason + " (" + DEVICE + ", " + PROVIDER + ")");
    }

    /**
     * Skips the test on an iWARP device (siw0), saying what the iWARP transport {@code lacks} that
     * the test needs, as the verbs suite's skips on siw0 do: everything else runs, and fails.
     */
    public static void assumeInfinibandTransport(IwarpLack lacks) {
        assumeTrue(!deviceIsIwarp(), DEVICE + " is iWARP, which " + lacks.reason());
    }

    /** Whether the device under test is iWARP (siw0). */
    public static boolean deviceIsIwarp() {
        return onDeviceUnderTest(device -> device.device().transportType() == TransportType.IWARP);
    }

    /** What {@code query} reads from the device under test, opened for it alone. */
    private static boolean onDeviceUnderTest(Predicate<DeviceContext> query) {
        try (Verbs verbs = Verbs.open(PROVIDER, List.of(DeviceSpec.named(DEVICE).build()));
             DeviceContext device = verbs.device(DEVICE).open()) {
            return query.test(device);
        }
    }

    /** The first exception of {@code type} in the cause chain of {@code failure}. */
    public static <T extends Throwable> T cause(Throwable failure, Class<T> type) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (type.isInstance(cause)) {
                return type.cast(cause);
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " in the cause chain of " + failure, failure);
    }

    /** Nothing the provider created is still alive. */
    public static void assertNoLiveObjects(Verbs verbs) {
        Map<ResourceKind, Long> live = verbs.liveObjects();
        assertThat(live).as("live objects after the context closed").allSatisfy((kind, count) ->
                assertThat(count).as(kind.name()).isZero());
    }
}
