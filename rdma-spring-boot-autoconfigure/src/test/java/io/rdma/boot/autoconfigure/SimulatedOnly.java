package io.rdma.boot.autoconfigure;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.Tag;

/**
 * A test that runs on the simulated fabric only, whatever provider the run selects, because it
 * injects faults ({@code FabricControl}), describes a device ({@code rdma.simulated.devices})
 * or needs a machine without RDMA hardware; each use says which. Such a test uses
 * {@link RdmaContextRunners#simulatedRunner()}. The Soft-RoCE run excludes the tag
 * ({@code --exclude-tag=simulated-only}), so these tests are not counted as skipped there.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag(SimulatedOnly.TAG)
public @interface SimulatedOnly {

    String TAG = "simulated-only";
}
