package io.rdma.spring.template;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/** The observations {@link RdmaTemplate} makes: one per operation, from when it is made until its future completes. */
public enum RdmaTemplateObservation implements ObservationDocumentation {

    /** A send, RDMA write or read, compare-and-swap or fetch-and-add. */
    OPERATION {
        @Override
        public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
            return DefaultRdmaTemplateObservationConvention.class;
        }

        @Override
        public KeyName[] getLowCardinalityKeyNames() {
            return LowCardinalityKeyNames.values();
        }
    };

    /** Tags whose values come from a set the configuration and the verbs API bound. */
    public enum LowCardinalityKeyNames implements KeyName {

        /** The declared queue pair, or for a peer's queue pair the prototype it was created from. */
        QUEUE_PAIR {
            @Override
            public String asString() {
                return "rdma.queue_pair";
            }
        },

        /** {@code send}, {@code send_with_imm}, {@code write}, {@code write_with_imm}, {@code read}, {@code compare_and_swap} or {@code fetch_and_add}. */
        OPERATION {
            @Override
            public String asString() {
                return "rdma.operation";
            }
        },

        /**
         * Once the future completed: {@code success}; the {@code ibv_wc_status} it completed with, lower
         * case without {@code IBV_WC_} ({@code rem_access_err}, {@code wr_flush_err}, ...);
         * {@code send_queue_full} when the send-timeout passed first; {@code cancelled}; or
         * {@code error} for any other failure. Absent while the operation is in flight.
         */
        OUTCOME {
            @Override
            public String asString() {
                return "outcome";
            }
        }
    }
}
