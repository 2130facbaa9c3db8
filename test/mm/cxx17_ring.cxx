// cxx17_ring: MPI from C++17 over the mm device, through the C API and through MPICH's C++
// bindings (libmpichcxx, namespace MPI).
//
//  1. A token travels once around the ring (rank 0 -> 1 -> ... -> 0), each rank appending
//     its rank to a std::vector carried in the message; the receiver sizes its buffer with
//     MPI_Probe/MPI_Get_count. Rank 0 must get back exactly 0, 1, ..., size-1.
//  2. Every rank sends, at once and nonblocking, a vector whose length and contents depend
//     on its rank to its right neighbour and receives its left neighbour's, for several
//     sizes from 1 element to past the eager limits (so shm/tcp rendezvous runs too).
//  3. A struct with mixed members (an MPI struct datatype) goes around the ring both ways.
//  4. The same ring through the C++ bindings: MPI::COMM_WORLD.Dup(), Sendrecv with an
//     MPI::Status, and Allreduce of the ranks.
// Rank 0 prints " No Errors" when every rank passed; failures print what was wrong and
// make the program exit non-zero.
#include <mpi.h>

#include <array>
#include <cstddef>
#include <cstdio>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace {

inline int g_rank = 0;
inline int g_errors = 0;

template <typename... Args>
void fail(std::string_view what, Args... args)
{
    ++g_errors;
    if (g_errors > 20)
        return;
    std::string line = "rank " + std::to_string(g_rank) + ": " + std::string(what);
    ((line += " " + std::to_string(args)), ...);
    std::puts(line.c_str());
    std::fflush(stdout);
}

struct Ring {
    int left, right;
};

Ring neighbours(int rank, int size)
{
    return {(rank + size - 1) % size, (rank + 1) % size};
}

// Receive a message of unknown length from `source`, or nothing if its length is not a
// whole number of ints.
std::optional<std::vector<int>> recv_vector(int source, int tag, MPI_Comm comm)
{
    MPI_Status st;
    MPI_Probe(source, tag, comm, &st);
    int count = 0;
    MPI_Get_count(&st, MPI_INT, &count);
    if (count == MPI_UNDEFINED)
        return std::nullopt;
    std::vector<int> v(static_cast<std::size_t>(count));
    MPI_Recv(v.data(), count, MPI_INT, st.MPI_SOURCE, tag, comm, MPI_STATUS_IGNORE);
    return v;
}

int value_of(int origin, std::size_t i)
{
    return origin * 7919 + static_cast<int>(i % 100003);
}

struct Particle {
    int id;
    double pos[3];
    char tag[5];
    long long weight;
};

MPI_Datatype particle_type()
{
    constexpr int n = 4;
    std::array<int, n> lens{1, 3, 5, 1};
    std::array<MPI_Aint, n> disps{offsetof(Particle, id), offsetof(Particle, pos),
                                  offsetof(Particle, tag), offsetof(Particle, weight)};
    std::array<MPI_Datatype, n> types{MPI_INT, MPI_DOUBLE, MPI_CHAR, MPI_LONG_LONG};
    MPI_Datatype t, resized;
    MPI_Type_create_struct(n, lens.data(), disps.data(), types.data(), &t);
    MPI_Type_create_resized(t, 0, sizeof(Particle), &resized);
    MPI_Type_free(&t);
    MPI_Type_commit(&resized);
    return resized;
}

Particle make_particle(int rank, int k)
{
    Particle p{};
    p.id = rank * 100 + k;
    for (int d = 0; d < 3; ++d)
        p.pos[d] = rank + 0.25 * d + k;
    p.tag[0] = static_cast<char>('a' + rank % 26);
    p.tag[1] = static_cast<char>('A' + k % 26);
    p.weight = (1LL << 40) + rank * 1000 + k;
    return p;
}

bool same(const Particle &a, const Particle &b)
{
    if (a.id != b.id || a.weight != b.weight || a.tag[0] != b.tag[0] || a.tag[1] != b.tag[1])
        return false;
    for (int d = 0; d < 3; ++d)
        if (a.pos[d] != b.pos[d])
            return false;
    return true;
}

}  // namespace

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int rank = g_rank;
    const auto [left, right] = neighbours(rank, size);

    // 1. the token around the ring
    if (rank == 0) {
        std::vector<int> path{0};
        MPI_Send(path.data(), static_cast<int>(path.size()), MPI_INT, right, 1, MPI_COMM_WORLD);
        if (auto got = recv_vector(left, 1, MPI_COMM_WORLD)) {
            std::vector<int> want(static_cast<std::size_t>(size));
            std::iota(want.begin(), want.end(), 0);
            if (*got != want)
                fail("token path wrong; length", static_cast<int>(got->size()));
        } else {
            fail("token: length not a whole number of ints");
        }
    } else {
        auto got = recv_vector(left, 1, MPI_COMM_WORLD);
        std::vector<int> path = got.value_or(std::vector<int>{});
        if (!got || static_cast<int>(path.size()) != rank)
            fail("token arrived with length", static_cast<int>(path.size()), rank);
        path.push_back(rank);
        MPI_Send(path.data(), static_cast<int>(path.size()), MPI_INT, right, 1, MPI_COMM_WORLD);
    }

    // 2. nonblocking exchange with both neighbours, growing sizes
    for (std::size_t n : {std::size_t{1}, std::size_t{100}, std::size_t{3000}, std::size_t{40000},
                          std::size_t{300000}}) {
        const std::size_t mine = n + static_cast<std::size_t>(rank);
        const std::size_t theirs = n + static_cast<std::size_t>(left);
        std::vector<int> out(mine), in(theirs, -1);
        for (std::size_t i = 0; i < mine; ++i)
            out[i] = value_of(rank, i);
        std::array<MPI_Request, 2> req{};
        MPI_Irecv(in.data(), static_cast<int>(theirs), MPI_INT, left, 2, MPI_COMM_WORLD, &req[0]);
        MPI_Isend(out.data(), static_cast<int>(mine), MPI_INT, right, 2, MPI_COMM_WORLD, &req[1]);
        std::array<MPI_Status, 2> st{};
        MPI_Waitall(2, req.data(), st.data());
        int count = -1;
        MPI_Get_count(&st[0], MPI_INT, &count);
        if (count != static_cast<int>(theirs) || st[0].MPI_SOURCE != left || st[0].MPI_TAG != 2)
            fail("exchange status: count source tag", count, st[0].MPI_SOURCE, st[0].MPI_TAG);
        std::size_t bad = 0;
        for (std::size_t i = 0; i < theirs; ++i)
            if (in[i] != value_of(left, i) && bad++ == 0)
                fail("exchange of n elements: first wrong element", static_cast<int>(n),
                     static_cast<int>(i), in[i]);
    }

    // 3. a struct datatype both ways around the ring
    {
        const MPI_Datatype ptype = particle_type();
        constexpr int K = 33;
        std::vector<Particle> out, from_left(K), from_right(K);
        for (int k = 0; k < K; ++k)
            out.push_back(make_particle(rank, k));
        MPI_Sendrecv(out.data(), K, ptype, right, 3, from_left.data(), K, ptype, left, 3,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(out.data(), K, ptype, left, 4, from_right.data(), K, ptype, right, 4,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int k = 0; k < K; ++k) {
            if (!same(from_left[k], make_particle(left, k)))
                fail("particle from the left wrong, index", k);
            if (!same(from_right[k], make_particle(right, k)))
                fail("particle from the right wrong, index", k);
        }
        MPI_Datatype t = ptype;
        MPI_Type_free(&t);
    }

    // 4. the C++ bindings
    {
        MPI::Intracomm comm = MPI::COMM_WORLD.Dup();
        if (comm.Get_rank() != rank || comm.Get_size() != size)
            fail("C++ bindings: rank/size of the dup", comm.Get_rank(), comm.Get_size());
        std::array<long, 3> out{rank, rank * 2L, -rank}, in{-1, -1, -1};
        MPI::Status st;
        comm.Sendrecv(out.data(), 3, MPI::LONG, right, 5, in.data(), 3, MPI::LONG, left, 5, st);
        if (st.Get_source() != left || st.Get_tag() != 5 || st.Get_count(MPI::LONG) != 3)
            fail("C++ Sendrecv status: source tag count", st.Get_source(), st.Get_tag(),
                 st.Get_count(MPI::LONG));
        if (in != std::array<long, 3>{left, left * 2L, -left})
            fail("C++ Sendrecv data", in[0], in[1], in[2]);
        int sum = 0;
        comm.Allreduce(&rank, &sum, 1, MPI::INT, MPI::SUM);
        if (sum != size * (size - 1) / 2)
            fail("C++ Allreduce sum", sum);
        comm.Free();
    }

    int total = 0;
    MPI_Reduce(&g_errors, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (total == 0)
            std::puts(" No Errors");
        else
            std::printf(" Found %d errors\n", total);
    }
    MPI_Finalize();
    return g_errors == 0 ? 0 : 1;
}
