! A Fortran MPI-IO program that knows nothing of tacio: each rank writes its
! block of an N x N integer array through a subarray view with
! MPI_File_write_all, reads it back with MPI_File_read_all; writes and reads
! buffers that are not contiguous (a strided section, a 2-D section, an
! assumed-shape dummy) at explicit offsets; sets a hint after open and
! reads it back (MPI_File_set_info, get_info); and checks the
! file with plain Fortran stream reads. `use mpi` here; fortran_app_f08.f90
! is the same with `use mpi_f08`.
! usage: fortran_app FILE; prints "fortran: N passed, M failed"
program fortran_app
    use mpi
    implicit none
    integer, parameter :: n = 24
    integer :: rank, nprocs, ierr, fh, filetype, i, j, dims(2), coords(2)
    integer :: sizes(2), subs(2), starts(2), status(MPI_STATUS_SIZE), count
    integer :: passed, failed, totals(2), sums(2)
    integer, allocatable :: mine(:, :), back(:, :), image(:, :)
    integer(kind=MPI_OFFSET_KIND) :: disp, base
    integer, parameter :: m = 6
    integer :: strided(2 * m), rb(2 * m), g(4, 6), h(4, 6), k, r
    integer, allocatable :: tails(:)
    character(len=256) :: path
    integer :: info, used
    character(len=64) :: value
    character(len=1024) :: preload
    logical :: flag

    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
    call get_command_argument(1, path)
    passed = 0
    failed = 0
    dims = 0
    call MPI_Dims_create(nprocs, 2, dims, ierr)
    coords(1) = mod(rank, dims(1))
    coords(2) = rank / dims(1)
    sizes = n
    subs = n / dims
    starts = coords * subs
    allocate (mine(subs(1), subs(2)), back(subs(1), subs(2)), image(n, n))
    do j = 1, subs(2)
        do i = 1, subs(1)
            mine(i, j) = value_at(starts(1) + i, starts(2) + j)
        end do
    end do
    if (rank == 0) call MPI_File_delete(path, MPI_INFO_NULL, ierr)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_INTEGER, &
                                  filetype, ierr)
    call MPI_Type_commit(filetype, ierr)
    call MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR + MPI_MODE_CREATE, MPI_INFO_NULL, &
                       fh, ierr)
    call expect(ierr == MPI_SUCCESS, 'open')
    ! hints set after open, read back: under the shim, tacio's values
    call MPI_Info_create(info, ierr)
    call MPI_Info_set(info, 'cb_buffer_size', '131072', ierr)
    call MPI_File_set_info(fh, info, ierr)
    call expect(ierr == MPI_SUCCESS, 'set_info')
    call MPI_Info_free(info, ierr)
    call MPI_File_get_info(fh, used, ierr)
    call expect(ierr == MPI_SUCCESS, 'get_info')
    call MPI_Info_get(used, 'cb_buffer_size', 64, value, flag, ierr)
    call get_environment_variable('LD_PRELOAD', preload)
    if (index(preload, 'tacio') > 0) &
        call expect(flag .and. value == '131072', 'get_info returns set_info''s cb_buffer_size')
    call MPI_Info_free(used, ierr)
    disp = 0
    call MPI_File_set_view(fh, disp, MPI_INTEGER, filetype, 'native', MPI_INFO_NULL, ierr)
    call expect(ierr == MPI_SUCCESS, 'set_view')
    call MPI_File_write_all(fh, mine, size(mine), MPI_INTEGER, status, ierr)
    call MPI_Get_count(status, MPI_INTEGER, count, ierr)
    call expect(count == size(mine), 'write_all status count')
    call MPI_File_seek(fh, disp, MPI_SEEK_SET, ierr)
    back = -1
    call MPI_File_read_all(fh, back, size(back), MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
    call expect(all_equal(back, mine), 'read_all returns what was written')
    disp = 0
    back = -1
    call MPI_File_read_at_all(fh, disp, back, size(back), MPI_INTEGER, status, ierr)
    call expect(all_equal(back, mine), 'read_at_all returns what was written')
    ! Buffers that are not contiguous: a strided section, a 2-D section and
    ! an assumed-shape dummy, written and read at explicit offsets past the
    ! array (each rank 3*m integers)
    disp = 0
    call MPI_File_set_view(fh, disp, MPI_BYTE, MPI_BYTE, 'native', MPI_INFO_NULL, ierr)
    do k = 1, 2 * m
        strided(k) = section_value(rank, k)
    end do
    do j = 1, 6
        do i = 1, 4
            g(i, j) = section_value(rank, 100 + 10 * i + j)
        end do
    end do
    base = int(n, MPI_OFFSET_KIND) * n * 4 + int(rank, MPI_OFFSET_KIND) * 3 * m * 4
    call MPI_File_write_at_all(fh, base, strided(1:2 * m:2), m, MPI_INTEGER, status, ierr)
    call expect(ierr == MPI_SUCCESS, 'write_at_all from a strided section')
    call MPI_File_write_at_all(fh, base + 4 * m, g(2:3, 1:5:2), m, MPI_INTEGER, status, ierr)
    call expect(ierr == MPI_SUCCESS, 'write_at_all from a 2-D section')
    call write_dummy(fh, base + 8 * m, strided(2:2 * m:2))
    rb = -1
    call MPI_File_read_at_all(fh, base, rb(2:2 * m:2), m, MPI_INTEGER, status, ierr)
    call expect(all(rb(2:2 * m:2) == strided(1:2 * m:2)) .and. all(rb(1:2 * m:2) == -1), &
                'read_at_all into a strided section')
    h = -1
    call MPI_File_read_at_all(fh, base + 4 * m, h(2:3, 1:5:2), m, MPI_INTEGER, status, ierr)
    call expect(all(h(2:3, 1:5:2) == g(2:3, 1:5:2)), 'read_at_all into a 2-D section')
    h(2:3, 1:5:2) = -1
    call expect(all(h == -1), 'read_at_all into a 2-D section leaves the rest')
    rb = -1
    call read_dummy(fh, base + 8 * m, rb(1:2 * m:2))
    call expect(all(rb(1:2 * m:2) == strided(2:2 * m:2)) .and. all(rb(2:2 * m:2) == -1), &
                'read_at_all into an assumed-shape dummy')
    call MPI_File_close(fh, ierr)
    call expect(fh == MPI_FILE_NULL, 'close sets MPI_FILE_NULL')
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    open (unit=10, file=trim(path), access='stream', form='unformatted', status='old')
    allocate (tails(3 * m * nprocs))
    read (10) image, tails
    close (10)
    do r = 0, nprocs - 1
        do k = 1, m
            call expect(tails(3 * m * r + k) == section_value(r, 2 * k - 1), &
                        'file holds the strided section')
            call expect(tails(3 * m * r + 2 * m + k) == section_value(r, 2 * k), &
                        'file holds the dummy''s section')
        end do
        do j = 1, 3
            do i = 1, 2
                call expect(tails(3 * m * r + m + 2 * (j - 1) + i) == &
                            section_value(r, 100 + 10 * (i + 1) + 2 * j - 1), &
                            'file holds the 2-D section')
            end do
        end do
    end do
    do j = 1, n
        do i = 1, n
            call expect(image(i, j) == value_at(i, j), 'file holds the closed form')
        end do
    end do
    totals = (/passed, failed/)
    call MPI_Reduce(totals, sums, 2, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
    if (rank == 0) print '(a,i0,a,i0,a)', 'fortran: ', sums(1), ' passed, ', sums(2), ' failed'
    call MPI_Type_free(filetype, ierr)
    call MPI_Finalize(ierr)
contains
    integer function section_value(r, k)
        integer, intent(in) :: r, k
        section_value = 7000000 + 10000 * r + k
    end function
    subroutine write_dummy(f, at, x)
        integer, intent(in) :: f
        integer(kind=MPI_OFFSET_KIND), intent(in) :: at
        integer, intent(in) :: x(:)
        call MPI_File_write_at_all(f, at, x, size(x), MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
        call expect(ierr == MPI_SUCCESS, 'write_at_all from an assumed-shape dummy')
    end subroutine
    subroutine read_dummy(f, at, x)
        integer, intent(in) :: f
        integer(kind=MPI_OFFSET_KIND), intent(in) :: at
        integer, intent(inout) :: x(:)
        call MPI_File_read_at_all(f, at, x, size(x), MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
        call expect(ierr == MPI_SUCCESS, 'read_at_all into an assumed-shape dummy')
    end subroutine
    integer function value_at(i, j)
        integer, intent(in) :: i, j
        value_at = 1000 * i + j
    end function
    logical function all_equal(a, b)
        integer, intent(in) :: a(:, :), b(:, :)
        all_equal = all(a == b)
    end function
    subroutine expect(ok, what)
        logical, intent(in) :: ok
        character(len=*), intent(in) :: what
        if (ok) then
            passed = passed + 1
        else
            failed = failed + 1
            print '(a,i0,2a)', 'FAIL [rank ', rank, '] ', what
        end if
    end subroutine
end program
