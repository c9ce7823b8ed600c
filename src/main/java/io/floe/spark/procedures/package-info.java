/**
 * The stored procedures served by {@code CALL <catalog>.system.<name>(...)}: the official Iceberg
 * runtime's names, parameters and output columns, on Iceberg's core API.
 *
 * <p>{@link io.floe.spark.procedures.Procedures} is the registry the catalog asks; every procedure
 * is one class extending {@link io.floe.spark.procedures.BaseProcedure}, with its parameters and
 * output schema declared as constants at its top. Arguments are checked when Spark binds the call
 * (a missing required argument, an unknown name or a type Spark cannot cast fails naming the
 * argument) and read through {@link io.floe.spark.procedures.ProcedureArgs}. Every check runs
 * before anything is committed, so a call that fails on its input leaves the table unchanged.
 */
package io.floe.spark.procedures;
