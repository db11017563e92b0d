package io.rdma.boot.autoconfigure;

import java.util.function.Consumer;

import org.springframework.aot.test.generate.TestGenerationContext;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.test.tools.CompileWithForkedClassLoader;
import org.springframework.core.test.tools.TestCompiler;
import org.springframework.javapoet.ClassName;

/**
 * Starts the context an {@link ApplicationContextRunner} describes as an application compiled
 * ahead of time starts, in two steps as Spring Boot's {@code process-aot} and
 * {@code -Dspring.aot.enabled=true} take them: the runner's context (its auto-configurations,
 * user configurations and environment) is processed ahead of time without being started, and the
 * generated code is compiled; then a fresh context is filled by nothing but the generated
 * initializer, in the same environment, and started. {@link ApplicationContextRunner} itself
 * never goes through AOT, so this is what puts the starter's bean registration through it.
 *
 * <p>What the runner registers must be generable, so no bean with an instance supplier
 * ({@code withBean(type, supplier)}): a test object the started context needs, such as a
 * recorder, is given to it at start ({@code atStart}), as a singleton registered before refresh.
 * A test class using this runs in a class loader of its own
 * ({@link CompileWithForkedClassLoader}), so that generated code may call the package-private
 * {@code @Bean} methods of the auto-configuration classes.
 */
public final class AotContextRunner {

    private AotContextRunner() {
    }

    /**
     * Processes {@code buildTime}'s context ahead of time, starts the generated one (its startup
     * failure, if any, kept as the runner keeps it) and hands it to {@code consumer}; closes it
     * afterwards. {@code atStart} runs first, before the generated initializer, which runs the
     * bean registrars: what it adds to the environment is what the start's properties are.
     */
    public static void run(ApplicationContextRunner buildTime, Consumer<GenericApplicationContext> atStart,
                           ContextConsumer<? super AssertableApplicationContext> consumer) {
        buildTime.prepare(prepared -> {
            GenericApplicationContext source = (GenericApplicationContext) prepared.getSourceApplicationContext();
            TestGenerationContext generation = new TestGenerationContext();
            ClassName initializer = new ApplicationContextAotGenerator().processAheadOfTime(source, generation);
            generation.writeGeneratedContent();
            TestCompiler.forSystem().with(generation).compile(compiled -> {
                try (AssertableApplicationContext started = AssertableApplicationContext.get(() -> {
                    GenericApplicationContext context = new GenericApplicationContext();
                    context.setEnvironment(source.getEnvironment());
                    atStart.accept(context);
                    @SuppressWarnings("unchecked") // what ApplicationContextAotGenerator generates initializes a generic context
                    ApplicationContextInitializer<GenericApplicationContext> generated =
                            compiled.getInstance(ApplicationContextInitializer.class, initializer.toString());
                    generated.initialize(context);
                    context.refresh();
                    return context;
                })) {
                    consumer.accept(started);
                } catch (RuntimeException | Error e) {
                    throw e;
                } catch (Throwable e) {
                    throw new IllegalStateException(e);
                }
            });
        });
    }
}
