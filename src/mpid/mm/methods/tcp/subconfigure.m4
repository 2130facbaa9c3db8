[#] start of __file__
dnl The tcp method: built with the mm device where the C library has BSD sockets.
dnl MPICH_SUBCFG_AFTER=src/mpid/mm

AC_DEFUN([PAC_SUBCFG_PREREQ_]PAC_SUBCFG_AUTO_SUFFIX,[
mm_tcp_ok=no
if test "$device_name" = "mm" ; then
    AC_CHECK_HEADERS([sys/socket.h netinet/in.h netinet/tcp.h sys/epoll.h poll.h],[],[mm_tcp_missing=yes])
    if test "$mm_tcp_missing" != yes ; then mm_tcp_ok=yes ; fi
    if test "$mm_tcp_ok" != yes ; then
        AC_MSG_WARN([mm: no BSD sockets headers; the tcp method is left out])
    fi
fi
AM_CONDITIONAL([BUILD_MM_TCP],[test "$mm_tcp_ok" = "yes"])
])

AC_DEFUN([PAC_SUBCFG_BODY_]PAC_SUBCFG_AUTO_SUFFIX,[
])

[#] end of __file__
