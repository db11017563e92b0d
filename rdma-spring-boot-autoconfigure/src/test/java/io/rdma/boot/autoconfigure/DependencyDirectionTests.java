package io.rdma.boot.autoconfigure;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The Spring layer sees RDMA through the verbs API only: no provider and no provider SPI, so
 * that either provider (and the choice between them at startup) serves every Spring feature.
 */
class DependencyDirectionTests {

    @Test
    void theSpringLayerUsesTheVerbsApiOnly() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("io.rdma.verbs.provider..", "io.rdma.verbs.spi..")
                .check(new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                        .importPackages("io.rdma.boot"));
    }
}
