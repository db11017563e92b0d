package io.rdma.boot.autoconfigure.preflight;

import io.rdma.verbs.api.ProviderKind;
import io.rdma.verbs.api.Verbs;

import java.util.Locale;
import java.util.Optional;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

/**
 * Says once, at startup, how to grant rdma-verbs native access when the JVM has not: the native
 * provider calls libibverbs through restricted methods of {@code java.lang.foreign}, for which the
 * JVM prints four {@code WARNING:} lines that do not say which setting of the application's own
 * launch is missing (JEP 472; a later JDK will refuse the calls). Only a provider that may be native
 * ({@code native} or {@code auto}) makes those calls, so {@code simulated} is never warned about.
 *
 * <p>A bean factory post-processor because those run before any bean is created: the JVM enables
 * native access for a module once it has warned about it, so a check after the provider opened
 * (which an application's own bean needing the template can cause at any point) would find it enabled.
 */
public final class NativeAccessCheck implements BeanFactoryPostProcessor {

    private static final Log logger = LogFactory.getLog(NativeAccessCheck.class);

    private final Optional<String> advice;

    /** Checks the module rdma-verbs was loaded into; the advice, if any, is logged as the context refreshes. */
    public NativeAccessCheck(ProviderKind provider) {
        Module verbs = Verbs.class.getModule();
        this.advice = advice(provider, verbs.isNativeAccessEnabled(), verbs.isNamed() ? verbs.getName() : null);
    }

    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
        advice.ifPresent(logger::warn);
    }

    /** What to tell the user; empty when native access is enabled or the provider is simulated. */
    public Optional<String> advice() {
        return advice;
    }

    /**
     * @param moduleName the name of the module rdma-verbs is in (its {@code Automatic-Module-Name}
     *        on the module path), {@code null} for the class path's unnamed module
     */
    static Optional<String> advice(ProviderKind provider, boolean nativeAccessEnabled, @Nullable String moduleName) {
        if (provider == ProviderKind.SIMULATED || nativeAccessEnabled) {
            return Optional.empty();
        }
        String grant = moduleName == null
                ? "add 'Enable-Native-Access: ALL-UNNAMED' to the manifest of the jar started with java -jar, or run"
                        + " java with --enable-native-access=ALL-UNNAMED"
                : "run java with --enable-native-access=" + moduleName;
        return Optional.of("Native access is not enabled for rdma-verbs, so the JVM warns about restricted methods"
                + " when the native provider (rdma.provider=" + provider.name().toLowerCase(Locale.ROOT)
                + ") loads libibverbs, and a later JDK will refuse them: " + grant
                + " (see the getting-started guide, 'Enable native access')");
    }
}
