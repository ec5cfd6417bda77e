package io.tablecast.bench;

import java.nio.file.Path;
import java.util.List;

/**
 * Settings of one suite run.
 *
 * @param quick the short version: shorter phases (noted in the report)
 * @param rates write rates of the latency figure, row changes/s
 * @param measureSeconds measured seconds of each timed phase (after warm-up)
 * @param warmupSeconds warm-up seconds of each timed phase (not recorded)
 * @param snapshotRows rows of the snapshot figure's table
 * @param subscribers subscriber counts of the fan-out figure
 * @param latencySystems systems the latency figure compares: {@code tablecast}, {@code debezium},
 *     and Tablecast through a client outside this JVM: {@code watch}, {@code node}, {@code browser}
 * @param debeziumPollMillis Debezium's {@code poll.interval.ms} in the latency figure
 * @param sysbenchSeconds seconds of each sysbench run of the trigger-overhead figure
 * @param sysbenchRounds rounds (one run with and one without triggers each) of that figure
 * @param pollSchedules the tail's poll schedules the poll-cost figure compares
 * @param idleSeconds seconds the poll-cost figure measures each schedule idle
 * @param scaleOutParts the parts of the scale-out figure to run: {@code latency}, {@code moving},
 *     {@code fanout}, {@code failover}
 */
public record Options(
    Path out,
    boolean quick,
    List<Db> dbs,
    List<Integer> rates,
    int measureSeconds,
    int warmupSeconds,
    long snapshotRows,
    List<Integer> subscribers,
    List<String> latencySystems,
    int debeziumPollMillis,
    int sysbenchSeconds,
    int sysbenchRounds,
    List<PollSchedule> pollSchedules,
    int idleSeconds,
    List<String> scaleOutParts) {}
