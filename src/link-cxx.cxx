// Never compiled: listed in nodist_EXTRA_*_SOURCES so that Automake links
// with the C++ compiler, which nvcc's objects need.
