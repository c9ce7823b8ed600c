/**
 * The SQL that Spark's parser lacks and the official Iceberg runtime adds through its session
 * extensions: partition evolution, write order, identifier fields, branches and tags ({@code ALTER
 * TABLE ... ADD PARTITION FIELD} and the rest, see {@link
 * io.floe.spark.extensions.FloeExtensionsParser}).
 *
 * <p>Internal: users name only {@code io.floe.spark.FloeSparkSessionExtensions}. The parser is a
 * small tokenizer and recursive-descent parser of the official grammar; a parsed statement becomes
 * a {@code CALL} of an already resolved procedure that carries it, which Spark 4.1 runs natively
 * (no planner strategy, no Scala plan node). Its table is resolved when it runs, in any Floe
 * catalog, and its change is one Iceberg commit.
 *
 * <p>Views of view catalogs: Spark's parser already parses the view statements, and {@link
 * io.floe.spark.extensions.ViewStatements} turns those that name a view catalog into a {@code CALL}
 * of their command ({@code CreateViewCommand} and the rest); {@link
 * io.floe.spark.extensions.ViewResolution} is the analyzer rule that reads views.
 */
package io.floe.spark.extensions;
