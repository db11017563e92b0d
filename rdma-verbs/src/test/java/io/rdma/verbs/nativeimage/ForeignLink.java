package io.rdma.verbs.nativeimage;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.util.List;

/** A downcall or upcall stub: what a native image must have registered for a link to work there. */
record ForeignLink(Kind kind, FunctionDescriptor descriptor, List<Linker.Option> options) {

    enum Kind { DOWNCALL, UPCALL }
}
