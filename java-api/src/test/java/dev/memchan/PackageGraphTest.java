package dev.memchan;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.Set;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The package graph of java-api as docs/architecture.md ("The library's layers") draws it, checked on the
 * compiled classes. Every package is a slice of its own, except that {@code dev.memchan} is two: the
 * vocabulary every layer uses ({@link #VOCABULARY}: value types that import nothing of the library but
 * {@code layout}) and the facade on top. The slices have no cycle, and no layer imports one above it.
 */
class PackageGraphTest {
    /** The public value types of {@code dev.memchan} that the SPI, the admin surface and the backends use. */
    static final Set<String> VOCABULARY = Set.of("MemchanException", "FabricOptions", "ClusterTime", "Route",
            "ClusterEvent", "LockKind");

    private static JavaClasses library;

    @BeforeAll
    static void importTheLibrary() {
        library = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.memchan");
        assertTrue(library.size() > 100, "the library's classes were found: " + library.size());
    }

    /** {@code dev.memchan}'s vocabulary, the facade, and every other package by its name. */
    private static final SliceAssignment SLICES = new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass c) {
            String pkg = c.getBaseComponentType().getPackageName();
            if (!pkg.startsWith("dev.memchan")) {
                return SliceIdentifier.ignore();
            }
            if (pkg.equals("dev.memchan")) {
                return SliceIdentifier.of(inVocabulary(c) ? "vocabulary" : "facade");
            }
            return SliceIdentifier.of(pkg.substring("dev.memchan.".length()));
        }

        @Override
        public String getDescription() {
            return "dev.memchan's vocabulary, its facade, and each other package";
        }
    };

    @Test
    void thePackagesHaveNoCycle() {
        slices().assignedFrom(SLICES).should().beFreeOfCycles().check(library);
    }

    @Test
    void theVocabularyImportsNothingOfTheLibraryButLayout() {
        noClasses().that(vocabulary()).should().dependOnClassesThat(
                resideInAPackage("dev.memchan..")
                        .and(not(
                                resideInAPackage("dev.memchan.layout")))
                        .and(not(vocabulary())))
                .check(library);
    }

    @Test
    void nothingBelowTheFacadeImportsIt() {
        noClasses().that().resideOutsideOfPackage("dev.memchan").should().dependOnClassesThat(facade()).check(library);
    }

    @Test
    void theSpiAndTheAdminSurfaceImportNoBackend() {
        noClasses().that().resideInAnyPackage("dev.memchan.spi", "dev.memchan.admin", "dev.memchan.layout")
                .should().dependOnClassesThat().resideInAPackage("dev.memchan.internal..").check(library);
    }

    /** Whether {@code c} (an array: its component type) is, or is nested in, a type of {@link #VOCABULARY}. */
    private static boolean inVocabulary(JavaClass c) {
        String name = c.getBaseComponentType().getName();
        return name.startsWith("dev.memchan.") && VOCABULARY.contains(name.substring("dev.memchan.".length()).split("\\$")[0]);
    }

    private static DescribedPredicate<JavaClass> vocabulary() {
        return DescribedPredicate.describe("the vocabulary of dev.memchan",
                c -> c.getBaseComponentType().getPackageName().equals("dev.memchan") && inVocabulary(c));
    }

    private static DescribedPredicate<JavaClass> facade() {
        return DescribedPredicate.describe("the facade of dev.memchan",
                c -> c.getBaseComponentType().getPackageName().equals("dev.memchan") && !inVocabulary(c));
    }
}
