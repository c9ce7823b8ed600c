package io.floe.spark;

/**
 * The {@link FloeDataSource} under the short name {@code iceberg}, the one jobs written for the
 * official runtime use: {@code spark.read.format("iceberg").load(x)} and {@code
 * df.write.format("iceberg")...save(x)} behave exactly as with {@code format("floe")}.
 *
 * <p>When the official runtime is on the same classpath it registers {@code iceberg} too, and Spark
 * refuses the name ("Multiple sources found for iceberg", naming both classes) rather than
 * choosing one; {@code format("floe")} or the class name then picks Floe.
 */
public final class FloeIcebergDataSource extends FloeDataSource {
  @Override
  public String shortName() {
    return "iceberg";
  }
}
