! f08_allreduce_put: the Fortran 2008 binding (use mpi_f08) over the mm device.
!
! Each rank checks
!   - MPI_Allreduce with MPI_SUM and MPI_MAX on integer and double precision arrays (the
!     results are computed here from the ranks), and MPI_Allreduce with MPI_IN_PLACE;
!   - MPI_Put with MPI_Win_fence: every rank puts N integers into a window on its right
!     neighbour at displacement N*rank (a window of N*size integers on each rank), so after
!     the closing fence each rank's window holds, in slice s, the values rank s wrote;
!   - a strided put: a vector datatype (every other element) into the left neighbour's
!     second window, checked element by element, untouched elements included.
! Derived types of mpi_f08 (type(MPI_Comm), type(MPI_Win), type(MPI_Datatype)) are used
! throughout. Rank 0 prints " No Errors" when every rank passed; otherwise failures are
! printed and the program stops with a nonzero status.
program f08_allreduce_put
    use mpi_f08
    implicit none
    integer, parameter :: N = 64
    integer :: rank, nprocs, ierr, i, s, right, left, errs, total_errs
    integer :: ibuf(N), isum(N), imax(N), iinplace(N)
    double precision :: dbuf(N), dsum(N)
    ! window memory changes behind the compiler's back: asynchronous, and MPI_F_sync_reg
    ! after each closing fence
    integer, allocatable, target, asynchronous :: winbuf(:), strided(:)
    integer :: src(N)
    integer(kind=MPI_ADDRESS_KIND) :: winsize, disp
    type(MPI_Win) :: win, win2
    type(MPI_Datatype) :: vtype
    type(MPI_Status) :: status
    integer :: expect

    errs = 0
    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
    right = mod(rank + 1, nprocs)
    left = mod(rank + nprocs - 1, nprocs)

    ! ---- Allreduce -------------------------------------------------------------------
    do i = 1, N
        ibuf(i) = rank * 1000 + i
        dbuf(i) = 0.5d0 * rank + i
    end do
    call MPI_Allreduce(ibuf, isum, N, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call MPI_Allreduce(ibuf, imax, N, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
    call MPI_Allreduce(dbuf, dsum, N, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    iinplace = ibuf
    call MPI_Allreduce(MPI_IN_PLACE, iinplace, N, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    do i = 1, N
        ! sum over r of (1000 r + i) = 1000 p(p-1)/2 + p i
        expect = 1000 * (nprocs * (nprocs - 1)) / 2 + nprocs * i
        if (isum(i) /= expect) call fail('allreduce sum', i, isum(i), expect)
        if (iinplace(i) /= expect) call fail('allreduce in place', i, iinplace(i), expect)
        expect = 1000 * (nprocs - 1) + i
        if (imax(i) /= expect) call fail('allreduce max', i, imax(i), expect)
        if (abs(dsum(i) - (0.25d0 * nprocs * (nprocs - 1) + nprocs * i)) > 1d-9) then
            errs = errs + 1
            print '(a,i0,a,i0,a,f14.4)', 'rank ', rank, ': allreduce double sum (', i, ') = ', dsum(i)
        end if
    end do

    ! ---- Put with fence into the right neighbour -------------------------------------
    allocate(winbuf(N * nprocs), strided(2 * N))
    winbuf = -1
    strided = -7
    winsize = int(N * nprocs, MPI_ADDRESS_KIND) * 4
    call MPI_Win_create(winbuf, winsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
    do i = 1, N
        src(i) = rank * 100000 + i
    end do
    call MPI_Win_fence(0, win, ierr)
    disp = int(N * rank, MPI_ADDRESS_KIND)
    call MPI_Put(src, N, MPI_INTEGER, right, disp, N, MPI_INTEGER, win, ierr)
    call MPI_Win_fence(0, win, ierr)
    call MPI_F_sync_reg(winbuf)
    ! Only the left neighbour put into us, at slice `left`; every other slice stays -1.
    do s = 0, nprocs - 1
        do i = 1, N
            if (s == left) then
                expect = left * 100000 + i
            else
                expect = -1
            end if
            if (winbuf(s * N + i) /= expect) call fail('put slice', s * N + i, winbuf(s * N + i), expect)
        end do
    end do
    ! A second epoch: every rank puts into slice `rank` of every process (itself
    ! included), so each window fills up completely.
    call MPI_Win_fence(0, win, ierr)
    do s = 0, nprocs - 1
        call MPI_Put(src, N, MPI_INTEGER, s, disp, N, MPI_INTEGER, win, ierr)
    end do
    call MPI_Win_fence(0, win, ierr)
    call MPI_F_sync_reg(winbuf)
    do s = 0, nprocs - 1
        do i = 1, N
            expect = s * 100000 + i
            if (winbuf(s * N + i) /= expect) call fail('put to all', s * N + i, winbuf(s * N + i), expect)
        end do
    end do
    call MPI_Win_free(win, ierr)

    ! ---- Strided put (vector datatype at the target) into the left neighbour ---------
    call MPI_Type_vector(N, 1, 2, MPI_INTEGER, vtype, ierr)
    call MPI_Type_commit(vtype, ierr)
    winsize = int(2 * N, MPI_ADDRESS_KIND) * 4
    call MPI_Win_create(strided, winsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win2, ierr)
    call MPI_Win_fence(MPI_MODE_NOPRECEDE, win2, ierr)
    call MPI_Put(src, N, MPI_INTEGER, left, 1_MPI_ADDRESS_KIND, 1, vtype, win2, ierr)
    call MPI_Win_fence(MPI_MODE_NOSUCCEED, win2, ierr)
    call MPI_F_sync_reg(strided)
    do i = 1, N
        ! element 2i (1-based) got src(i) of the right neighbour; element 2i-1 is untouched
        if (strided(2 * i) /= right * 100000 + i) &
            call fail('strided put', 2 * i, strided(2 * i), right * 100000 + i)
        if (strided(2 * i - 1) /= -7) call fail('strided put gap', 2 * i - 1, strided(2 * i - 1), -7)
    end do
    call MPI_Win_free(win2, ierr)
    call MPI_Type_free(vtype, ierr)

    ! ---- A point-to-point round with a status object, to touch type(MPI_Status) ------
    call MPI_Sendrecv(rank, 1, MPI_INTEGER, right, 5, i, 1, MPI_INTEGER, left, 5, &
                      MPI_COMM_WORLD, status, ierr)
    if (i /= left) call fail('sendrecv value', 1, i, left)
    if (status%MPI_SOURCE /= left) call fail('sendrecv source', 1, status%MPI_SOURCE, left)
    if (status%MPI_TAG /= 5) call fail('sendrecv tag', 1, status%MPI_TAG, 5)

    call MPI_Reduce(errs, total_errs, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
    if (rank == 0) then
        if (total_errs == 0) then
            print '(a)', ' No Errors'
        else
            print '(a,i0,a)', ' Found ', total_errs, ' errors'
        end if
    end if
    deallocate(winbuf, strided)
    call MPI_Finalize(ierr)
    if (errs /= 0) stop 1

contains

    subroutine fail(what, idx, got, want)
        character(len=*), intent(in) :: what
        integer, intent(in) :: idx, got, want
        errs = errs + 1
        if (errs <= 20) print '(a,i0,a,a,a,i0,a,i0,a,i0)', 'rank ', rank, ': ', what, &
            ' (', idx, ') = ', got, ', expected ', want
    end subroutine fail

end program f08_allreduce_put
