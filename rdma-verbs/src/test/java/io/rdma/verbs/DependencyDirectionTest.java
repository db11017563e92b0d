package io.rdma.verbs;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The arrows between the packages of rdma-verbs point one way: providers depend on the API and
 * the SPI, never the reverse; the providers do not know each other; and only the native
 * provider touches the jextract bindings, so that a change of libibverbs' layouts stays there.
 */
class DependencyDirectionTest {

    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("io.rdma.verbs");

    @Test
    void theApiImportsNoProvider() {
        noClasses().that().resideInAPackage("io.rdma.verbs.api..")
                .should().dependOnClassesThat().resideInAPackage("io.rdma.verbs.provider..").check(MAIN);
    }

    @Test
    void theSpiImportsNoProvider() {
        noClasses().that().resideInAPackage("io.rdma.verbs.spi..")
                .should().dependOnClassesThat().resideInAPackage("io.rdma.verbs.provider..").check(MAIN);
    }

    @Test
    void onlyTheNativeProviderUsesTheGeneratedBindings() {
        noClasses().that().resideOutsideOfPackage("io.rdma.verbs.provider.ibverbs..")
                .should().dependOnClassesThat().resideInAPackage("io.rdma.verbs.provider.ibverbs.generated..")
                .check(MAIN);
    }

    @Test
    void theProvidersDoNotKnowEachOther() {
        noClasses().that().resideInAPackage("io.rdma.verbs.provider.simulated..")
                .should().dependOnClassesThat().resideInAPackage("io.rdma.verbs.provider.ibverbs..").check(MAIN);
        noClasses().that().resideInAPackage("io.rdma.verbs.provider.ibverbs..")
                .should().dependOnClassesThat().resideInAPackage("io.rdma.verbs.provider.simulated..").check(MAIN);
    }
}
