package io.floe.spark;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.junit.jupiter.api.Test;

/** The session catalog takes FloeCatalog's options, and refuses bad ones in the same words. */
class FloeSessionCatalogOptionsTest {

  @Test
  void anUnknownCatalogTypeIsNamed() {
    assertThatThrownBy(() -> initialize(Map.of("type", "bogus")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Cannot create catalog spark_catalog")
        .hasMessageContaining("unknown catalog type 'bogus'");
  }

  @Test
  void aMissingRequiredOptionNamesTheSparkSetting() {
    assertThatThrownBy(() -> initialize(Map.of("type", "jdbc", "warehouse", "file:///warehouse")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("option 'uri' is required for type=jdbc")
        .hasMessageContaining("spark.sql.catalog.spark_catalog.uri");
  }

  private static void initialize(Map<String, String> options) {
    new FloeSessionCatalog().initialize("spark_catalog", new CaseInsensitiveStringMap(options));
  }
}
