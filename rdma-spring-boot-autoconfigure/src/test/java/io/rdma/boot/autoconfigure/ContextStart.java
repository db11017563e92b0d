package io.rdma.boot.autoconfigure;

import java.util.function.Consumer;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.context.support.GenericApplicationContext;

/**
 * How a test starts the context a runner describes: as {@link ApplicationContextRunner} does, or
 * as an application compiled ahead of time does ({@link AotContextRunner}). A test that must
 * hold in both takes this as its parameter ({@code @EnumSource(ContextStart.class)}).
 */
public enum ContextStart {

    REGULAR {
        @Override
        public void run(ApplicationContextRunner runner, Consumer<GenericApplicationContext> atStart,
                        ContextConsumer<? super AssertableApplicationContext> consumer) {
            runner.withInitializer(context -> atStart.accept((GenericApplicationContext) context)).run(consumer);
        }
    },

    AHEAD_OF_TIME {
        @Override
        public void run(ApplicationContextRunner runner, Consumer<GenericApplicationContext> atStart,
                        ContextConsumer<? super AssertableApplicationContext> consumer) {
            AotContextRunner.run(runner, atStart, consumer);
        }
    };

    /** Starts {@code runner}'s context after {@code atStart} and hands it, or its startup failure, to {@code consumer}. */
    public abstract void run(ApplicationContextRunner runner, Consumer<GenericApplicationContext> atStart,
                             ContextConsumer<? super AssertableApplicationContext> consumer);

    /** {@link #run} with nothing to do before the start. */
    public void run(ApplicationContextRunner runner, ContextConsumer<? super AssertableApplicationContext> consumer) {
        run(runner, context -> {
        }, consumer);
    }

    /** {@link #run} with {@code recorder} as a bean of the started context. */
    public void run(ApplicationContextRunner runner, ResourceLifecycleRecorder recorder,
                    ContextConsumer<? super AssertableApplicationContext> consumer) {
        run(runner, recorder::registerIn, consumer);
    }
}
