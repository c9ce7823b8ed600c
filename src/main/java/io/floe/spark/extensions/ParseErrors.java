package io.floe.spark.extensions;

import io.floe.spark.util.Unchecked;
import java.util.Map;
import org.apache.spark.sql.catalyst.parser.ParseException;
import org.apache.spark.sql.catalyst.trees.Origin;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Builds the errors of the extension parser in one place: Spark's own {@link ParseException} with
 * condition {@code PARSE_SYNTAX_ERROR}, so that a bad extension statement fails like any other bad
 * statement, names the token it stopped at with its line and position, and says why.
 */
final class ParseErrors {
  private static final String CONDITION = "PARSE_SYNTAX_ERROR";

  private ParseErrors() {}

  /**
   * Throws a syntax error at {@code token} of the statement {@code sql}. {@link ParseException} is
   * a checked exception that Spark's Scala code throws undeclared; so does this.
   *
   * @param reason what was expected or what is wrong, as a sentence fragment
   * @return never; declared so that callers can write {@code throw ParseErrors.at(...)}
   */
  static RuntimeException at(String sql, SqlToken token, String reason) {
    Origin origin =
        new Origin(
            Option.apply(token.line()),
            Option.apply(token.column()),
            Option.apply(token.start()),
            Option.apply(Math.max(token.start(), token.stop())),
            Option.apply(sql),
            Option.empty(),
            Option.empty(),
            Option.empty(),
            Option.empty(),
            Option.empty());
    Map<String, String> parameters = Map.of("error", token.quoted(), "hint", ": " + reason);
    throw Unchecked.rethrow(
        new ParseException(
            Option.apply(sql),
            origin,
            CONDITION,
            scala.collection.immutable.Map$.MODULE$.from(CollectionConverters.asScala(parameters))));
  }
}
