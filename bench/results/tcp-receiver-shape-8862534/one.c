// one TCP stream, sender/receiver shapes: block (blocking whole-message loop), nb (nonblocking + select, iperf3-like partial writes/reads)
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/select.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <errno.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
  int sending=!strcmp(argv[1],"send"); int port=atoi(argv[2]); int nb=!strcmp(argv[3],"nb");
  size_t size=strtoul(argv[4],0,0); double secs=argc>5?atof(argv[5]):0;
  char*buf=malloc(size); memset(buf,1,size);
  struct sockaddr_in a={0}; a.sin_family=AF_INET; a.sin_port=htons(port); a.sin_addr.s_addr=htonl(INADDR_LOOPBACK);
  int fd;
  if(!sending){int l=socket(AF_INET,SOCK_STREAM,0);int one=1;setsockopt(l,SOL_SOCKET,SO_REUSEADDR,&one,4);
    if(bind(l,(void*)&a,sizeof a)||listen(l,1)){perror("bind");return 1;} fd=accept(l,0,0);}
  else{fd=socket(AF_INET,SOCK_STREAM,0); if(connect(fd,(void*)&a,sizeof a)){perror("connect");return 1;}}
  if(nb) fcntl(fd,F_SETFL,fcntl(fd,F_GETFL)|O_NONBLOCK);
  long long bytes=0; double t0=now(), end=t0+secs;
  for(;;){
    if(sending && now()>=end) break;
    if(nb){fd_set s;FD_ZERO(&s);FD_SET(fd,&s);struct timeval tv={1,0};
      int r=sending?select(fd+1,0,&s,0,&tv):select(fd+1,&s,0,0,&tv); if(r<=0) continue;
      // iperf3: up to multisend(10) whole-buffer attempts per select, each Nwrite loops until EAGAIN
      for(int m=0;m<10;m++){ size_t left=size; char*p=buf; int again=0;
      while(left){ssize_t n=sending?write(fd,p,left):read(fd,p,left); if(n<0){if(errno==EAGAIN){again=1;break;} goto out;} if(n==0) goto out; bytes+=n; left-=n; p+=n;}
      if(again) break; }
    } else {
      size_t left=size; char*p=buf;
      while(left){ssize_t n=sending?write(fd,p,left):read(fd,p,left); if(n<=0) goto out; bytes+=n; left-=n;p+=n;}
    }
  }
out:
  if(sending) printf("%.3f\n", bytes/(now()-t0)/1e9);
  close(fd); return 0;
}
