package io.rdma.boot.autoconfigure;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.rdma.verbs.provider.simulated.DeviceSpec;
import io.rdma.verbs.provider.simulated.FabricControl;
import io.rdma.verbs.provider.simulated.SharedFabric;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The Spring layer sees RDMA through the verbs API: no provider SPI and nothing of the native
 * provider, so that either provider (and the choice between them at startup) serves every
 * Spring feature. Of the simulated provider it uses the fabric's user-facing configuration
 * only, {@link DeviceSpec} (the devices {@code rdma.simulated} describes, with its builder),
 * {@link SharedFabric} ({@code rdma.simulated.fabric}) and {@link FabricControl}, which are
 * settings and an extension the API passes through, never
 * what serves the verbs.
 */
class DependencyDirectionTests {

    @Test
    void theSpringLayerUsesTheVerbsApiAndTheSimulatedFabricsConfigurationOnly() {
        noClasses().should().dependOnClassesThat(resideInAnyPackage("io.rdma.verbs.provider..", "io.rdma.verbs.spi..")
                        .and(not(belongToAnyOf(DeviceSpec.class, SharedFabric.class, FabricControl.class))))
                .check(new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                        .importPackages("io.rdma.boot"));
    }
}
