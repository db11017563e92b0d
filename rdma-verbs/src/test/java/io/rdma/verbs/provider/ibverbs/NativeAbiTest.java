package io.rdma.verbs.provider.ibverbs;

import io.rdma.verbs.provider.ibverbs.generated.ibv_ah_attr;
import io.rdma.verbs.provider.ibverbs.generated.ibv_async_event;
import io.rdma.verbs.provider.ibverbs.generated.ibv_comp_channel;
import io.rdma.verbs.provider.ibverbs.generated.ibv_context;
import io.rdma.verbs.provider.ibverbs.generated.ibv_context_ops;
import io.rdma.verbs.provider.ibverbs.generated.ibv_counter_attach_attr;
import io.rdma.verbs.provider.ibverbs.generated.ibv_counters_init_attr;
import io.rdma.verbs.provider.ibverbs.generated.ibv_cq;
import io.rdma.verbs.provider.ibverbs.generated.ibv_cq_ex;
import io.rdma.verbs.provider.ibverbs.generated.ibv_cq_init_attr_ex;
import io.rdma.verbs.provider.ibverbs.generated.ibv_poll_cq_attr;
import io.rdma.verbs.provider.ibverbs.generated.ibv_device;
import io.rdma.verbs.provider.ibverbs.generated.ibv_device_attr;
import io.rdma.verbs.provider.ibverbs.generated.ibv_device_attr_ex;
import io.rdma.verbs.provider.ibverbs.generated.ibv_flow_attr;
import io.rdma.verbs.provider.ibverbs.generated.ibv_flow_spec_eth;
import io.rdma.verbs.provider.ibverbs.generated.ibv_flow_spec_ipv4;
import io.rdma.verbs.provider.ibverbs.generated.ibv_flow_spec_tcp_udp;
import io.rdma.verbs.provider.ibverbs.generated.ibv_global_route;
import io.rdma.verbs.provider.ibverbs.generated.ibv_mr;
import io.rdma.verbs.provider.ibverbs.generated.ibv_port_attr;
import io.rdma.verbs.provider.ibverbs.generated.ibv_qp;
import io.rdma.verbs.provider.ibverbs.generated.ibv_qp_attr;
import io.rdma.verbs.provider.ibverbs.generated.ibv_qp_cap;
import io.rdma.verbs.provider.ibverbs.generated.ibv_qp_init_attr;
import io.rdma.verbs.provider.ibverbs.generated.ibv_recv_wr;
import io.rdma.verbs.provider.ibverbs.generated.ibv_send_wr;
import io.rdma.verbs.provider.ibverbs.generated.ibv_sge;
import io.rdma.verbs.provider.ibverbs.generated.ibv_srq;
import io.rdma.verbs.provider.ibverbs.generated.ibv_srq_attr;
import io.rdma.verbs.provider.ibverbs.generated.ibv_srq_init_attr;
import io.rdma.verbs.provider.ibverbs.generated.ibv_wc;
import io.rdma.verbs.provider.ibverbs.generated.verbs_context;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.lang.foreign.StructLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The layouts the native provider reads and writes against what gcc says about the same
 * headers: {@code sizeof} of every struct, and {@code offsetof} and size of every member,
 * nested ones included (anonymous unions are flattened, as C names their members). The
 * generated layouts and the few declared by hand are both checked. Skipped only without
 * gcc or the rdma-core headers.
 */
class NativeAbiTest {

    /** Every struct the provider touches, by its C name. */
    private static final Map<String, MemoryLayout> STRUCTS = new LinkedHashMap<>();

    static {
        STRUCTS.put("struct ibv_device", ibv_device.layout());
        STRUCTS.put("struct ibv_context", ibv_context.layout());
        STRUCTS.put("struct ibv_context_ops", ibv_context_ops.layout());
        STRUCTS.put("struct verbs_context", verbs_context.layout());
        STRUCTS.put("struct ibv_device_attr", ibv_device_attr.layout());
        STRUCTS.put("struct ibv_device_attr_ex", ibv_device_attr_ex.layout());
        STRUCTS.put("struct ibv_port_attr", ibv_port_attr.layout());
        STRUCTS.put("struct ibv_comp_channel", ibv_comp_channel.layout());
        STRUCTS.put("struct ibv_cq", ibv_cq.layout());
        STRUCTS.put("struct ibv_qp", ibv_qp.layout());
        STRUCTS.put("struct ibv_qp_cap", ibv_qp_cap.layout());
        STRUCTS.put("struct ibv_qp_init_attr", ibv_qp_init_attr.layout());
        STRUCTS.put("struct ibv_qp_attr", ibv_qp_attr.layout());
        STRUCTS.put("struct ibv_ah_attr", ibv_ah_attr.layout());
        STRUCTS.put("struct ibv_global_route", ibv_global_route.layout());
        STRUCTS.put("struct ibv_srq", ibv_srq.layout());
        STRUCTS.put("struct ibv_srq_attr", ibv_srq_attr.layout());
        STRUCTS.put("struct ibv_srq_init_attr", ibv_srq_init_attr.layout());
        STRUCTS.put("struct ibv_mr", ibv_mr.layout());
        STRUCTS.put("struct ibv_sge", ibv_sge.layout());
        STRUCTS.put("struct ibv_send_wr", ibv_send_wr.layout());
        STRUCTS.put("struct ibv_recv_wr", ibv_recv_wr.layout());
        STRUCTS.put("struct ibv_wc", ibv_wc.layout());
        STRUCTS.put("struct ibv_async_event", ibv_async_event.layout());
        STRUCTS.put("struct ibv_cq_ex", ibv_cq_ex.layout());
        STRUCTS.put("struct ibv_cq_init_attr_ex", ibv_cq_init_attr_ex.layout());
        STRUCTS.put("struct ibv_poll_cq_attr", ibv_poll_cq_attr.layout());
        STRUCTS.put("struct ibv_flow_attr", ibv_flow_attr.layout());
        STRUCTS.put("struct ibv_flow_spec_eth", ibv_flow_spec_eth.layout());
        STRUCTS.put("struct ibv_flow_spec_ipv4", ibv_flow_spec_ipv4.layout());
        STRUCTS.put("struct ibv_flow_spec_tcp_udp", ibv_flow_spec_tcp_udp.layout());
        STRUCTS.put("struct ibv_counters_init_attr", ibv_counters_init_attr.layout());
        STRUCTS.put("struct ibv_counter_attach_attr", ibv_counter_attach_attr.layout());
        // declared by hand
        STRUCTS.put("struct ibv_flow_spec_counter_action", NativeFlow.COUNTER_ACTION);
        STRUCTS.put("struct pollfd", Libc.POLLFD);
    }

    /**
     * Where the rdma-core headers are: {@code -Drdma.abi.include-dir=DIR} checks the layouts against
     * another rdma-core's ({@code DIR/infiniband/verbs.h}, e.g. the {@code build/include} of
     * {@code softroce/rdma-core-build.sh}); the system's by default.
     */
    private static final Path INCLUDE_DIR = Path.of(System.getProperty("rdma.abi.include-dir", "/usr/include"));

    /**
     * Structs libibverbs takes together with the caller's {@code sizeof} and fills only that far,
     * so a newer header may append members the provider does not read: their C size may be larger
     * than the Java one, every member the provider knows must still match. {@code struct
     * ibv_port_attr}: {@code ibv_query_port} passes its size to {@code verbs_context.query_port},
     * whose implementation copies just that much ({@code __lib_query_port} in libibverbs/verbs.c);
     * rdma-core 56 appended {@code active_speed_ex} (52 to 56 bytes).
     */
    private static final Set<String> SIZED_BY_CALLER = Set.of("struct ibv_port_attr");

    /** One C expression and the value the Java layouts give for it; {@code atMost}: C's may be larger. */
    private record Check(String expression, long javaValue, boolean atMost) {

        Check(String expression, long javaValue) {
            this(expression, javaValue, false);
        }

        boolean holds(Long c) {
            return c != null && (atMost ? javaValue <= c : javaValue == c);
        }
    }

    @Test
    void layoutsMatchWhatGccComputesFromTheHeaders(@TempDir Path work) throws Exception {
        assumeTrue(Files.isRegularFile(INCLUDE_DIR.resolve("infiniband/verbs.h")),
                "rdma-core headers are not installed (libibverbs-dev) in " + INCLUDE_DIR);
        assumeTrue(commandExists("gcc"), "gcc is not installed");

        List<Check> checks = new ArrayList<>();
        STRUCTS.forEach((name, layout) -> {
            checks.add(new Check("sizeof(" + name + ")", layout.byteSize(), SIZED_BY_CALLER.contains(name)));
            members(name, (GroupLayout) layout, "", 0, checks);
        });
        Map<String, Long> gcc = compileAndRun(work, checks);

        List<String> mismatches = new ArrayList<>();
        for (Check check : checks) {
            Long expected = gcc.get(check.expression());
            if (!check.holds(expected)) {
                mismatches.add(check.expression() + ": gcc " + expected + ", Java " + check.javaValue());
            }
        }
        assertThat(checks).hasSizeGreaterThan(400);
        assertThat(mismatches).as("layouts that differ from the C ABI").isEmpty();
    }

    /** Offsets and sizes of every named member, recursing into nested structs and unions. */
    private static void members(String struct, GroupLayout group, String prefix, long base, List<Check> checks) {
        long offset = base;
        for (MemoryLayout member : group.memberLayouts()) {
            long at = group instanceof StructLayout ? offset : base;
            offset += group instanceof StructLayout ? member.byteSize() : 0;
            if (member instanceof PaddingLayout || member.name().isEmpty()) {
                continue;
            }
            String name = member.name().get();
            boolean anonymous = name.startsWith("$anon$");
            String path = anonymous ? prefix : prefix + name;
            if (!anonymous) {
                checks.add(new Check("offsetof(" + struct + ", " + path + ")", at));
                checks.add(new Check("sizeof(((" + struct + " *) 0)->" + path + ")", member.byteSize()));
            }
            if (member instanceof GroupLayout nested) {
                members(struct, nested, anonymous ? prefix : path + ".", at, checks);
            }
        }
    }

    private static Map<String, Long> compileAndRun(Path work, List<Check> checks) throws IOException,
            InterruptedException {
        StringBuilder source = new StringBuilder("""
                #include <stddef.h>
                #include <stdio.h>
                #include <poll.h>
                #include <infiniband/verbs.h>
                int main(void) {
                """);
        for (Check check : checks) {
            source.append("    printf(\"%s=%zu\\n\", \"").append(check.expression()).append("\", (size_t) (")
                    .append(check.expression()).append("));\n");
        }
        source.append("    return 0;\n}\n");
        Path program = work.resolve("abi.c");
        Path binary = work.resolve("abi");
        Files.writeString(program, source);
        run(List.of("gcc", "-std=gnu11", "-I", INCLUDE_DIR.toString(), "-o", binary.toString(), program.toString()));
        Map<String, Long> values = new LinkedHashMap<>();
        for (String line : run(List.of(binary.toString())).lines().toList()) {
            int equals = line.lastIndexOf('=');
            values.put(line.substring(0, equals), Long.parseLong(line.substring(equals + 1)));
        }
        return values;
    }

    private static String run(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as("%s:%n%s", command, output).isZero();
        return output;
    }

    private static boolean commandExists(String command) {
        for (String directory : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(directory, command))) {
                return true;
            }
        }
        return false;
    }
}
