package io.rdma.boot.autoconfigure;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.Tag;

/**
 * A test of a declaration that the plan check refuses: the start fails while the beans are
 * registered, before any provider is opened, so the test is the same on every provider; it checks
 * that no provider was opened. The Soft-RoCE run leaves these tests out
 * ({@code --exclude-tag=plan-check}): under emulation each costs a context start, and on rxe0 they
 * would prove nothing the host run did not.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag(PlanCheck.TAG)
public @interface PlanCheck {

    String TAG = "plan-check";
}
