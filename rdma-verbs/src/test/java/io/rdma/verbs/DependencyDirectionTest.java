package io.rdma.verbs;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import org.junit.jupiter.api.Test;

import java.util.stream.Stream;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.codeUnits;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The arrows between the packages of rdma-verbs point one way: providers depend on the API and
 * the SPI, never the reverse; the providers do not know each other, and the code they share
 * ({@code io.rdma.verbs.provider.support}) knows neither; and only the native provider touches
 * the jextract bindings, so that a change of libibverbs' layouts stays there.
 * The API uses the SPI only behind its public surface: an application never sees a provider's
 * plumbing.
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
    void noPublicApiMethodOrConstructorTakesOrReturnsAnSpiType() {
        codeUnits().that().areDeclaredInClassesThat().resideInAPackage("io.rdma.verbs.api..")
                .and().areDeclaredInClassesThat().arePublic().and().arePublic()
                .should(notUseSpiTypesInTheirSignature()).check(MAIN);
    }

    /** Checks the raw return type and raw parameter types: what a caller must name to use the member. */
    private static ArchCondition<JavaCodeUnit> notUseSpiTypesInTheirSignature() {
        return new ArchCondition<>("not take or return io.rdma.verbs.spi types") {
            @Override
            public void check(JavaCodeUnit codeUnit, ConditionEvents events) {
                Stream.concat(Stream.of(codeUnit.getRawReturnType()), codeUnit.getRawParameterTypes().stream())
                        .filter(type -> type.getPackageName().startsWith("io.rdma.verbs.spi"))
                        .map(JavaClass::getName)
                        .forEach(spiType -> events.add(SimpleConditionEvent.violated(codeUnit,
                                codeUnit.getFullName() + " names " + spiType)));
            }
        };
    }

    @Test
    void theSpiImportsNoProvider() {
        noClasses().that().resideInAPackage("io.rdma.verbs.spi..")
                .should().dependOnClassesThat().resideInAPackage("io.rdma.verbs.provider..").check(MAIN);
    }

    @Test
    void theSharedProviderCodeKnowsNeitherProvider() {
        noClasses().that().resideInAPackage("io.rdma.verbs.provider.support..")
                .should().dependOnClassesThat().resideInAnyPackage("io.rdma.verbs.provider.simulated..",
                        "io.rdma.verbs.provider.ibverbs..").check(MAIN);
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
