package io.floe.spark;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;

/**
 * The package rules of DESIGN.md, checked over the compiled main classes: no import cycle between
 * any two packages of {@code io.floe.spark}, read and write code (and everything below them) never
 * reaches the catalog nor each other, the executor side of a write never imports the plan pieces
 * above it, and Floe's Parquet decoder knows nothing of the read path.
 */
@AnalyzeClasses(
    packages = "io.floe.spark",
    importOptions = ArchitectureTest.MainClassesOnly.class)
class ArchitectureTest {

  @ArchTest
  static final ArchRule noCycleBetweenPackages =
      slices()
          .assignedFrom(new EachPackage())
          .should()
          .beFreeOfCycles()
          .because("imports between packages point one way");

  @ArchTest
  static final ArchRule readAndWriteNeverImportTheCatalog =
      noClasses()
          .that()
          .resideInAnyPackage("io.floe.spark.read..", "io.floe.spark.write..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("io.floe.spark.catalog..")
          .because("executor code must not reach a catalog, even by accident");

  @ArchTest
  static final ArchRule readNeverImportsWrite =
      noClasses()
          .that()
          .resideInAPackage("io.floe.spark.read..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("io.floe.spark.write..")
          .because("reads and writes meet only in a row-level package");

  @ArchTest
  static final ArchRule writeNeverImportsRead =
      noClasses()
          .that()
          .resideInAPackage("io.floe.spark.write..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("io.floe.spark.read..")
          .because("reads and writes meet only in a row-level package");

  @ArchTest
  static final ArchRule writeExecutorsNeverImportWritePlanPieces =
      noClasses()
          .that()
          .resideInAPackage("io.floe.spark.write.exec..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("io.floe.spark.write")
          .because("the plan pieces build the writers, never the other way round");

  @ArchTest
  static final ArchRule parquetDecoderNeverImportsTheReadPath =
      noClasses()
          .that()
          .resideInAPackage("io.floe.spark.parquet..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("io.floe.spark.read..")
          .allowEmptyShould(true)
          .because("the decoder knows Parquet and Spark's vectors, nothing of Iceberg planning");

  /** One slice per package, sub-packages apart, so that a cycle between any two is found. */
  static final class EachPackage implements SliceAssignment {
    @Override
    public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
      String name = javaClass.getPackageName();
      return name.equals("io.floe.spark") || name.startsWith("io.floe.spark.")
          ? SliceIdentifier.of(name)
          : SliceIdentifier.ignore();
    }

    @Override
    public String getDescription() {
      return "every package of io.floe.spark";
    }
  }

  /**
   * Main classes only, wherever the build puts them: the build directory is configurable
   * ({@code floe.build.dir}), so ArchUnit's own test-class patterns do not apply.
   */
  static final class MainClassesOnly implements ImportOption {
    @Override
    public boolean includes(Location location) {
      return !location.isJar() && !location.contains("/test-classes/");
    }
  }
}
