package io.rdma.spring;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The programming model is plain Spring over the verbs API: it knows neither Spring Boot nor the
 * auto-configuration that wires it (so that it can be wired by hand, and the arrows point from
 * the auto-configuration to it), nor a provider or the provider SPI (so that either provider
 * serves every feature); and its packages depend on each other one way, without cycles.
 */
class DependencyDirectionTests {

    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("io.rdma.spring");

    @Test
    void theProgrammingModelKnowsNeitherSpringBootNorTheAutoConfiguration() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("org.springframework.boot..", "io.rdma.boot..")
                .check(MAIN);
    }

    @Test
    void theProgrammingModelUsesTheVerbsApiOnly() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("io.rdma.verbs.provider..", "io.rdma.verbs.spi..")
                .check(MAIN);
    }

    @Test
    void thePackagesOfTheProgrammingModelDependOnEachOtherWithoutCycles() {
        slices().matching("io.rdma.spring.(*)..").should().beFreeOfCycles().check(MAIN);
    }
}
